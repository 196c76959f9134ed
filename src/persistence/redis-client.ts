import { createClient, type RedisClientType } from 'redis';
import { ServiceError } from '../errors/service-error.js';

/** The node-redis client type the service uses. */
export type Redis = RedisClientType;

/**
 * Connects to Redis. Commands fail fast while disconnected (no offline queue) so callers answer 503,
 * and the client keeps reconnecting in the background so the service recovers without a restart.
 */
export async function createRedis(url: string): Promise<Redis> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
  }) as unknown as Redis;
  // Errors are reported per command; the 'error' listener only keeps them from crashing the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const UNAVAILABLE_NAMES = new Set(['ClientClosedError', 'ClientOfflineError', 'ConnectionTimeoutError', 'SocketClosedUnexpectedlyError', 'SocketTimeoutError', 'ReconnectStrategyError']);

/** Answers whether an error means Redis is unreachable. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; constructor?: { name?: string }; code?: string; message?: string } | null;
  if (!e) return false;
  if (UNAVAILABLE_NAMES.has(e.constructor?.name ?? '') || UNAVAILABLE_NAMES.has(e.name ?? '')) return true;
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') return true;
  return /client is closed|client is offline|socket closed|connection is closed|LOADING/i.test(e.message ?? '');
}

/** Converts an unreachable-Redis error into 503 SERVICE_UNAVAILABLE; passes others through. */
export function translateRedisError(err: unknown): unknown {
  if (isRedisUnavailable(err)) return new ServiceError('SERVICE_UNAVAILABLE', 'Redis is unavailable.', { retryAfter: 1, cause: err });
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
