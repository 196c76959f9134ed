import { status as GrpcStatus, type Metadata, type ServiceError as GrpcError, type StatusObject } from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import type { ServiceError } from '../errors/service-error.js';
import { decodeServiceError } from '../grpc/error-metadata.js';
import { qualifiedServiceName } from '../grpc/service-registry.js';
import { RpcFailure, restHeaders } from './call-rpc.js';
import type { RpcCaller } from './rpc-caller.js';

/**
 * The internal API of this same process as the gateway calls it (the gRPC server's `inProcess`): a unary call by
 * method path, run through the server's own interceptors and handler, that settles with its status (trailers in its
 * metadata), its response when OK, and the ServiceError the status was made from when there was one.
 */
export interface InProcessApi {
  unary(
    path: string,
    request: unknown,
    metadata: Metadata,
    opts: { deadline: number; signal?: AbortSignal },
  ): Promise<{ status: StatusObject; response?: unknown; error?: ServiceError }>;
}

/**
 * The caller that calls the API of this process in-process: no connection, no encoding. What the client sees is what
 * a gRPC client sees: the answer and its `rest-header-*` trailers, or an RpcFailure carrying the server's ServiceError
 * as it was (a status the server made without one, its deadline or a cancellation, is decoded as a network client
 * decodes it). Requests and responses are the typed messages as objects, as grpc-gateway's in-process handlers pass
 * them: nothing is encoded (the gateway built the request's message: request-message-of.ts).
 */
export function inProcessCaller(api: InProcessApi): RpcCaller {
  return async (service, rpc, request, metadata, o) => {
    const { status, response, error } = await api.unary(`/${qualifiedServiceName(service)}/${rpc}`, request, metadata, {
      deadline: Date.now() + o.deadlineMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const headers = restHeaders(status.metadata);
    if (status.code !== GrpcStatus.OK) {
      const failure = Object.assign(new Error(`${status.code} ${GrpcStatus[status.code]}: ${status.details}`), status);
      throw new RpcFailure(error ?? decodeServiceError(failure as GrpcError), headers);
    }
    return { response: response as Record<string, unknown>, headers };
  };
}
