import { createCluster, type RedisClusterType } from '@redis/client';
import type { Tracing } from '../observability/create-tracing.js';
import { boundRedisReplies } from './bound-redis-replies.js';
import { traceRedisCommands } from './trace-redis-commands.js';

/** The URL scheme that names a Redis Cluster by some of its nodes: `redis-cluster://host:port,host:port`. */
export const REDIS_CLUSTER_SCHEME = 'redis-cluster://';

/** A Redis Cluster node's address. */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

/**
 * Parses a comma-separated `host:port` list (REDIS_CLUSTER_NODES); throws, saying the expected form, on a bad entry.
 * An IPv6 host is written in brackets (`[::1]:7000`).
 */
export function parseRedisClusterNodes(list: string): RedisNodeAddress[] {
  const nodes = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((entry) => {
      const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/.exec(entry);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535)
        throw new Error(
          `REDIS_CLUSTER_NODES entry ${JSON.stringify(entry)} is not host:port (e.g. 10.0.0.1:7000,10.0.0.2:7000)`,
        );
      return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new Error('REDIS_CLUSTER_NODES names no node: give host:port[,host:port...]');
  return nodes;
}

/** The nodes a `redis-cluster://` URL names; undefined for any other URL (a single Redis server). */
export function redisClusterNodes(url: string): RedisNodeAddress[] | undefined {
  if (!url.startsWith(REDIS_CLUSTER_SCHEME)) return undefined;
  return parseRedisClusterNodes(url.slice(REDIS_CLUSTER_SCHEME.length).replace(/\/$/, ''));
}

/** Writes the cluster URL for `nodes` (what REDIS_CLUSTER_NODES becomes, so forked workers get the same setting). */
export function redisClusterUrl(nodes: readonly RedisNodeAddress[]): string {
  return (
    REDIS_CLUSTER_SCHEME + nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',')
  );
}

/** The settings every node connection of the cluster client shares with the single-server client (redis-client.ts). */
export interface RedisClusterSettings {
  /** Bound on each reply, per node connection (0: none). */
  commandTimeoutMs: number;
  /** Commands one node connection may have waiting; beyond, a command fails at once. */
  maxQueuedCommands: number;
  tracing?: Tracing | undefined;
}

/**
 * Connects to a Redis Cluster with node-redis `createCluster`, seeded by `nodes` (the rest is discovered). Every node
 * connection gets the single-server client's policy: no offline queue (a command for a node that is down fails at once,
 * so the caller answers 503), bounded queue and replies, reconnection in the background. A node that keeps failing to
 * reconnect (a master killed) makes the client re-read the topology every second, so commands reach the promoted
 * replica without a restart. Scripts and MULTI are routed by their first key: every key family of the service carries
 * a hash tag so that all keys of one script or transaction share a slot (redis-keys.ts).
 */
export async function createRedisCluster(
  nodes: readonly RedisNodeAddress[],
  settings: RedisClusterSettings,
): Promise<RedisClusterType> {
  const timeout = settings.commandTimeoutMs;
  const cluster = createCluster({
    rootNodes: nodes.map((n) => ({ socket: { host: n.host, port: n.port } })),
    defaults: {
      disableOfflineQueue: true,
      commandsQueueMaxLength: settings.maxQueuedCommands,
      socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
    },
    ...(timeout > 0 ? { commandOptions: { timeout } } : {}),
    // The default waits 5 s of failed reconnections before asking the others who serves the slots now.
    topologyRefreshOnReconnectionAttemptStrategy: 1000,
  }) as unknown as RedisClusterType;
  const prepared = new WeakSet<object>();
  // Node connections are made by the cluster client (at discovery and on a topology change): each gets the reply bound
  // and the tracing of redis-client.ts when it first connects, before it can take commands (there is no offline queue).
  const prepare = () => {
    for (const node of [...cluster.masters, ...cluster.replicas]) {
      const client = node.client as object | undefined;
      if (!client || prepared.has(client)) continue;
      prepared.add(client);
      if (timeout > 0) boundRedisReplies(client, timeout);
      if (settings.tracing) traceRedisCommands(client, settings.tracing, `redis://${node.host}:${node.port}`);
    }
  };
  cluster.on('node-connect', prepare);
  // Errors are reported per command; the listeners only keep them from crashing the process.
  cluster.on('error', () => undefined);
  cluster.on('node-error', () => undefined);
  await cluster.connect();
  prepare();
  return cluster;
}
