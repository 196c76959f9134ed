import { Channel, credentials, type ChannelOptions, type Client } from '@grpc/grpc-js';
import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import { GRPC_SERVICES } from '../grpc/service-registry.js';
import { GRPC_CHANNEL_OPTIONS } from '../grpc/grpc-channel-options.js';

/** One grpc-js client per service of the internal API, all on one channel. */
export type GrpcClients = Record<GrpcServiceName, Client>;

/** Clients of every service on `channel`. */
function clientsOn(channel: Channel, target: string): GrpcClients {
  const out = {} as GrpcClients;
  for (const [name, svc] of Object.entries(GRPC_SERVICES) as [
    GrpcServiceName,
    (typeof GRPC_SERVICES)[GrpcServiceName],
  ][]) {
    out[name] = new svc.Client(target, credentials.createInsecure(), { channelOverride: channel });
  }
  return out;
}

/**
 * Connects clients for every service to `target` (host:port) on one channel, with message limits matched to the
 * server's and keepalive pings; `options` are grpc-js channel options overriding those. The gateway sends its unary
 * calls (every REST request but event streams) on these, and its readiness probe too, so /readyz answers through the
 * connection the API uses.
 */
export function createGrpcClients(target: string, options: ChannelOptions = {}): GrpcClients {
  const channel = new Channel(target, credentials.createInsecure(), { ...GRPC_CHANNEL_OPTIONS.client, ...options });
  return clientsOn(channel, target);
}

/**
 * Connects clients for the server-streaming calls (event streams) on a channel with a connection of its own (a
 * private subchannel pool: grpc-js otherwise shares one connection among channels of equal options), so long-lived
 * streams never take the concurrent-call places (1,000 per connection) that unary calls need.
 */
export function createStreamClients(target: string, options: ChannelOptions = {}): GrpcClients {
  const channel = new Channel(target, credentials.createInsecure(), {
    ...GRPC_CHANNEL_OPTIONS.client,
    ...options,
    'grpc.use_local_subchannel_pool': 1,
  });
  return clientsOn(channel, target);
}

/** Closes every client (and so their channel). */
export function closeGrpcClients(clients: GrpcClients): void {
  for (const c of Object.values(clients)) c.close();
}
