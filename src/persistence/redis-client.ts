// node-redis's client package itself: the `redis` package re-exports it and adds the Redis Stack modules (JSON, search,
// time series, bloom: some 170 more modules loaded, and their commands built into every client), which no store here has.
import { createClient, type RedisClientType } from '@redis/client';
import { ServiceError } from '../errors/service-error.js';
import type { Tracing } from '../observability/create-tracing.js';
import { boundRedisReplies, RedisReplyTimeoutError } from './bound-redis-replies.js';
import { createRedisCluster, redisClusterNodes } from './redis-cluster-client.js';
import { traceRedisCommands } from './trace-redis-commands.js';

export { RedisReplyTimeoutError } from './bound-redis-replies.js';

/** The node-redis client type the service uses (a Redis Cluster client is used through it too: see createRedis). */
export type Redis = RedisClientType;

/** Default bound on waiting for a Redis reply (REDIS_COMMAND_TIMEOUT_MS). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** Commands one client may have waiting (to be written or for their reply); beyond, a command fails at once. */
const MAX_QUEUED_COMMANDS = 10_000;

/**
 * Connects to Redis: one server, or a Redis Cluster when `url` is `redis-cluster://host:port,...`
 * (redis-cluster-client.ts; the cluster client answers the same commands, so it is used as a `Redis`, and its node
 * connections follow the same policy). Commands fail fast while disconnected (no offline queue) so callers answer 503,
 * and the client keeps reconnecting in the background so the service recovers without a restart. Each command's
 * reply is awaited at most `commandTimeoutMs` (0: no bound), and at most MAX_QUEUED_COMMANDS wait at once, so a
 * server that accepts commands but never answers fails them within the bound instead of queueing them for ever. With
 * `tracing`, each command of a traced request or job gets a span (trace-redis-commands.ts; `duplicate()`s do not).
 */
export async function createRedis(
  url: string,
  opts: { commandTimeoutMs?: number; tracing?: Tracing } = {},
): Promise<Redis> {
  const timeout = opts.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
  const clusterNodes = redisClusterNodes(url);
  if (clusterNodes)
    return (await createRedisCluster(clusterNodes, {
      commandTimeoutMs: timeout,
      maxQueuedCommands: MAX_QUEUED_COMMANDS,
      tracing: opts.tracing,
    })) as unknown as Redis;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
    // node-redis's own `timeout` only covers the wait to be written (a socket that does not drain).
    ...(timeout > 0 ? { commandOptions: { timeout } } : {}),
    socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
  }) as unknown as Redis;
  if (timeout > 0) boundRedisReplies(client, timeout);
  // Outside the bound, so a span also ends when the bound gives up on a reply.
  if (opts.tracing) traceRedisCommands(client, opts.tracing, url);
  // Errors are reported per command; the 'error' listener only keeps them from crashing the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const UNAVAILABLE_NAMES = new Set([
  'ClientClosedError',
  'ClientOfflineError',
  'ConnectionTimeoutError',
  'SocketClosedUnexpectedlyError',
  'SocketTimeoutError',
  'ReconnectStrategyError',
  'RedisReplyTimeoutError',
  'TimeoutError',
  'DisconnectsClientError',
  // A Redis Cluster whose seed nodes all fail, or whose slot moves more often than the client follows.
  'RootNodesUnavailableError',
  'MaxCommandRedirectionsError',
]);

/** Answers whether an error means Redis is unreachable. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; constructor?: { name?: string }; code?: string; message?: string } | null;
  if (!e) return false;
  if (UNAVAILABLE_NAMES.has(e.constructor?.name ?? '') || UNAVAILABLE_NAMES.has(e.name ?? '')) return true;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  // `The queue is full`: MAX_QUEUED_COMMANDS are already waiting on a server that does not answer.
  // CLUSTERDOWN / TRYAGAIN / MASTERDOWN: a cluster slot has no master yet (failover) or is being moved.
  return /client is closed|client is offline|socket closed|connection is closed|queue is full|LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|Cannot find node/i.test(
    e.message ?? '',
  );
}

/** Converts an unreachable-Redis error into 503 SERVICE_UNAVAILABLE; passes others through. */
export function translateRedisError(err: unknown): unknown {
  if (isRedisUnavailable(err))
    return new ServiceError(
      'SERVICE_UNAVAILABLE',
      err instanceof RedisReplyTimeoutError ? 'Redis did not answer in time.' : 'Redis is unavailable.',
      { retryAfter: 1, cause: err },
    );
  return err;
}

/** Runs a Redis call, turning an unreachable Redis into 503 SERVICE_UNAVAILABLE. */
export async function withRedis<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateRedisError(err);
  }
}
