import { credentials, type ChannelOptions, type Client } from '@grpc/grpc-js';
import { GRPC_SERVICES, type GrpcServiceName } from '../grpc/service-registry.js';

/** One grpc-js client per service of the internal API, all on one target. */
export type GrpcClients = Record<GrpcServiceName, Client>;

/** Connects clients for every service to `target` (host:port); `options` are grpc-js channel options. */
export function createGrpcClients(target: string, options: ChannelOptions = {}): GrpcClients {
  const out = {} as GrpcClients;
  for (const [name, svc] of Object.entries(GRPC_SERVICES) as [GrpcServiceName, (typeof GRPC_SERVICES)[GrpcServiceName]][]) {
    out[name] = new svc.Client(target, credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024, ...options });
  }
  return out;
}

/** Closes every client. */
export function closeGrpcClients(clients: GrpcClients): void {
  for (const c of Object.values(clients)) c.close();
}
