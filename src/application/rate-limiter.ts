import { performance } from 'node:perf_hooks';
import { withRedis, type Redis } from '../persistence/redis-client.js';

/** The state of a key's window, for the RateLimit-* headers. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

// INCR and set the window's expiry atomically; returns [count, ttl in ms].
const SCRIPT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`;

/**
 * A fixed one-minute window per API key, shared by every process through Redis. `onRoundTrip` is told the duration
 * (seconds) of each Redis round trip: one per authenticated request, so it is the request path's Redis wait.
 */
export function createRateLimiter(deps: {
  redis: Redis;
  limitPerMinute: number;
  clock: () => Date;
  onRoundTrip?: (seconds: number) => void;
}) {
  return async function consume(keyId: string): Promise<RateLimitState> {
    const windowMs = 60_000;
    const windowStart = Math.floor(deps.clock().getTime() / windowMs);
    const sent = performance.now();
    const reply = (await withRedis(() =>
      deps.redis.eval(SCRIPT, { keys: [`ratelimit:{${keyId}}:${windowStart}`], arguments: [String(windowMs)] }),
    )) as [number, number];
    deps.onRoundTrip?.((performance.now() - sent) / 1000);
    const [count, ttlMs] = reply;
    const reset = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : windowMs) / 1000));
    return {
      limit: deps.limitPerMinute,
      remaining: Math.max(0, deps.limitPerMinute - count),
      reset,
      allowed: count <= deps.limitPerMinute,
    };
  };
}

/** The consume function created by createRateLimiter. */
export type RateLimiter = ReturnType<typeof createRateLimiter>;
