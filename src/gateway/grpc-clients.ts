import { credentials, type ChannelOptions, type Client } from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { GRPC_SERVICES } from '../grpc/service-registry.js';
import { GRPC_CHANNEL_OPTIONS } from '../grpc/grpc-channel-options.js';

/** One grpc-js client per service of the internal API, all on one target. */
export type GrpcClients = Record<GrpcServiceName, Client>;

/**
 * Connects clients for every service to `target` (host:port), with message limits matched to the server's and
 * keepalive pings; `options` are grpc-js channel options overriding those.
 */
export function createGrpcClients(target: string, options: ChannelOptions = {}): GrpcClients {
  const out = {} as GrpcClients;
  for (const [name, svc] of Object.entries(GRPC_SERVICES) as [
    GrpcServiceName,
    (typeof GRPC_SERVICES)[GrpcServiceName],
  ][]) {
    out[name] = new svc.Client(target, credentials.createInsecure(), { ...GRPC_CHANNEL_OPTIONS.client, ...options });
  }
  return out;
}

/** Closes every client. */
export function closeGrpcClients(clients: GrpcClients): void {
  for (const c of Object.values(clients)) c.close();
}
