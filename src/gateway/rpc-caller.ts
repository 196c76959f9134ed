import type { Metadata } from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { callRpc, type RpcOutcome } from './call-rpc.js';
import type { GrpcClients } from './grpc-clients.js';

/**
 * Calls one unary RPC of the internal API and waits for its answer and trailers; rejects with RpcFailure. `signal`
 * cancels the call (the HTTP client went away). The gateway makes every unary call through one: over the network
 * (networkCaller) or in-process when the API runs in the same process (inProcessCaller).
 */
export type RpcCaller = (
  service: GrpcServiceName,
  rpc: string,
  request: unknown,
  metadata: Metadata,
  opts: { deadlineMs: number; signal?: AbortSignal },
) => Promise<RpcOutcome>;

/** The caller that sends each call over gRPC on `clients` (createGrpcClients). */
export function networkCaller(clients: GrpcClients): RpcCaller {
  return (service, rpc, request, metadata, opts) => callRpc(clients[service], rpc, request, metadata, opts);
}
