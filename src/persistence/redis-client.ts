import { createClient, type RedisClientType } from 'redis';
import { ServiceError } from '../errors/service-error.js';
import type { Tracing } from '../observability/create-tracing.js';
import { traceRedisCommands } from './trace-redis-commands.js';

/** The node-redis client type the service uses. */
export type Redis = RedisClientType;

/** Default bound on waiting for a Redis reply (REDIS_COMMAND_TIMEOUT_MS). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** Commands one client may have waiting (to be written or for their reply); beyond, a command fails at once. */
const MAX_QUEUED_COMMANDS = 10_000;

/** A Redis reply that did not come within the bound: the server hangs (stopped, stalled) or the link is gone. */
export class RedisReplyTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisReplyTimeoutError';
  }
}

/**
 * Connects to Redis. Commands fail fast while disconnected (no offline queue) so callers answer 503,
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
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
    // node-redis's own `timeout` only covers the wait to be written (a socket that does not drain).
    ...(timeout > 0 ? { commandOptions: { timeout } } : {}),
    socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
  }) as unknown as Redis;
  if (timeout > 0) boundReplies(client, timeout);
  // Outside the bound, so a span also ends when the bound gives up on a reply.
  if (opts.tracing) traceRedisCommands(client, opts.tracing, url);
  // Errors are reported per command; the 'error' listener only keeps them from crashing the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The one place every command of a node-redis client passes (commands, scripts, MULTI, the connection handshake). */
interface CommandQueue {
  addCommand(...args: unknown[]): Promise<unknown>;
}

/**
 * Bounds the wait for each reply. node-redis stops timing a command once it is written, and a stopped server's
 * kernel still accepts the bytes, so its callers would wait for ever; the bound is put on the queue every command goes
 * through (`_getQueue`, internal to node-redis 5/6: an upgrade that drops it fails here, at start-up and in the tests).
 * A late reply is still read and dropped, so the connection stays in step.
 */
function boundReplies(client: Redis, ms: number): void {
  const queue = (client as unknown as { _getQueue?: () => CommandQueue })._getQueue?.();
  if (typeof queue?.addCommand !== 'function')
    throw new Error('node-redis has no _getQueue().addCommand: update boundReplies in src/persistence/redis-client.ts');
  const add = queue.addCommand.bind(queue);
  queue.addCommand = (...args: unknown[]) => {
    const reply = add(...args);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new RedisReplyTimeoutError(ms)), ms);
      reply.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
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
]);

/** Answers whether an error means Redis is unreachable. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; constructor?: { name?: string }; code?: string; message?: string } | null;
  if (!e) return false;
  if (UNAVAILABLE_NAMES.has(e.constructor?.name ?? '') || UNAVAILABLE_NAMES.has(e.name ?? '')) return true;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  // `The queue is full`: MAX_QUEUED_COMMANDS are already waiting on a server that does not answer.
  return /client is closed|client is offline|socket closed|connection is closed|queue is full|LOADING/i.test(
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
