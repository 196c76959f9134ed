import type pg from 'pg';
import { ServiceError } from '../errors/service-error.js';

/** Options of boundPoolWaiters. */
export interface PoolWaiterBound {
  /** Callers that may wait for a connection while every connection is in use; 0: no bound. */
  maxWaiters: number;
  /** Told each time a caller is refused. */
  onRefused?: () => void;
}

/** The error of a caller refused for want of a connection: 503, recoverable, with Retry-After. */
function poolFull(maxWaiters: number): ServiceError {
  return new ServiceError(
    'SERVICE_UNAVAILABLE',
    `Every PostgreSQL connection is in use and ${maxWaiters} callers already wait for one; retry after Retry-After seconds.`,
    { retryAfter: 1 },
  );
}

/**
 * boundPoolWaiters makes `pool` refuse a checkout at once, with 503 `SERVICE_UNAVAILABLE`, when every connection is in
 * use and `maxWaiters` callers already wait for one, instead of queueing it until the pool's connection timeout. Every
 * query and transaction checks out through `pool.connect` (pg's `pool.query` too), so this one wrapper bounds them all.
 */
export function boundPoolWaiters(pool: pg.Pool, bound: PoolWaiterBound): void {
  if (bound.maxWaiters <= 0) return;
  const connect = pool.connect.bind(pool) as (
    cb?: (err: Error | undefined, client?: pg.PoolClient, done?: (release?: unknown) => void) => void,
  ) => Promise<pg.PoolClient> | void;
  const size = (pool as unknown as { options: { max: number } }).options.max;
  (pool as unknown as { connect: typeof connect }).connect = (cb) => {
    const mustWait = pool.idleCount === 0 && pool.totalCount >= size;
    if (!mustWait || pool.waitingCount < bound.maxWaiters) return connect(cb);
    bound.onRefused?.();
    const err = poolFull(bound.maxWaiters);
    if (!cb) return Promise.reject(err);
    // pg calls back asynchronously; so does the refusal.
    process.nextTick(() => cb(err));
    return undefined;
  };
}
