import {
  status as GrpcStatus,
  type Metadata,
  type MethodDefinition,
  type ServiceDefinition,
  type ServiceError as GrpcError,
  type StatusObject,
} from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import type { ServiceError } from '../errors/service-error.js';
import { decodeServiceError } from '../grpc/error-metadata.js';
import { GRPC_SERVICES, qualifiedServiceName } from '../grpc/service-registry.js';
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

/** The generated method of an RPC (its codecs). */
function methodOf(service: GrpcServiceName, rpc: string): MethodDefinition<unknown, unknown> | undefined {
  const def = GRPC_SERVICES[service].definition as ServiceDefinition;
  return Object.values(def).find((d) => d.path.endsWith(`/${rpc}`)) as MethodDefinition<unknown, unknown> | undefined;
}

/**
 * The caller that calls the API of this process in-process: no connection, no encoding. What the client sees is what
 * a gRPC client sees: the answer and its `rest-header-*` trailers, or an RpcFailure carrying the server's ServiceError
 * as it was (a status the server made without one, its deadline or a cancellation, is decoded as a network client
 * decodes it). With `wireForm`, the request and the response still go through the method's codecs, as they would on
 * the wire: the typed and check answer forms exist to exercise the typed translation, encoding included.
 */
export function inProcessCaller(api: InProcessApi, opts: { wireForm: boolean }): RpcCaller {
  return async (service, rpc, request, metadata, o) => {
    const codecs = opts.wireForm ? methodOf(service, rpc) : undefined;
    const sent = codecs ? codecs.requestDeserialize(codecs.requestSerialize(request)) : request;
    const { status, response, error } = await api.unary(`/${qualifiedServiceName(service)}/${rpc}`, sent, metadata, {
      deadline: Date.now() + o.deadlineMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const headers = restHeaders(status.metadata);
    if (status.code !== GrpcStatus.OK) {
      const failure = Object.assign(new Error(`${status.code} ${GrpcStatus[status.code]}: ${status.details}`), status);
      throw new RpcFailure(error ?? decodeServiceError(failure as GrpcError), headers);
    }
    const received = codecs ? codecs.responseDeserialize(codecs.responseSerialize(response)) : response;
    return { response: received as Awaited<ReturnType<RpcCaller>>['response'], headers };
  };
}
