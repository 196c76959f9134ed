import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ServiceError } from '../errors/service-error.js';

/** A query runner: the pool itself or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/** The PostgreSQL side of the service: a pool plus transactions. */
export interface Database {
  pool: pg.Pool;
  /** One autocommit statement; re-run (bounded) when PostgreSQL aborts it for a deadlock or a serialization failure. */
  query: pg.Pool['query'];
  /**
   * Runs `fn` in one transaction; rolls back on error. A transaction PostgreSQL aborts for a deadlock (40P01) or a
   * serialization failure (40001) is re-run from the start a few times, so `fn` must have no effect outside the
   * transaction (no Redis writes, no e-mail, no changes to outer state it does not reset).
   */
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How often a statement or transaction aborted by a deadlock or serialization failure runs before the error surfaces. */
export const CONFLICT_ATTEMPTS = 4;
const CONFLICT_CODES = new Set(['40P01', '40001']);

/** Answers whether PostgreSQL aborted the work for a deadlock or a serialization failure (safe to run again). */
export function isTransientConflict(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return (typeof e?.code === 'string' && CONFLICT_CODES.has(e.code)) || (typeof e?.cause?.code === 'string' && CONFLICT_CODES.has(e.cause.code));
}

/** The error a client gets when the last attempt still conflicted: 503, recoverable, with Retry-After. */
function conflictUnavailable(err: unknown): ServiceError {
  return new ServiceError('SERVICE_UNAVAILABLE', 'PostgreSQL aborted the request for a lock conflict several times; retry it.', { retryAfter: 1, cause: err });
}

/** Full jitter up to 5, 10, 20 ms after attempts 1, 2, 3: the transactions that collided do not collide again in step. */
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** (attempt - 1)));

/**
 * Runs `run` and re-runs it after a short jittered pause while it fails with a deadlock or serialization failure,
 * at most CONFLICT_ATTEMPTS times in all; then 503 SERVICE_UNAVAILABLE (never a 500).
 */
export async function retryOnConflict<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isTransientConflict(err)) throw err;
      if (attempt >= CONFLICT_ATTEMPTS) throw conflictUnavailable(err);
      await backoff(attempt);
    }
  }
}

// bigint columns (graph_version, seq) fit in a JS number for this service's lifetime.
pg.types.setTypeParser(20, (v) => Number(v));

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** Answers whether an error means PostgreSQL is unreachable (as opposed to a bad query). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  const m = e.message ?? '';
  // `timeout exceeded when trying to connect` is the pool giving up on a free connection: busy or down, a retry may pass.
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(m);
}

/** Converts an unreachable-database error into 503 SERVICE_UNAVAILABLE; passes others through. */
export function translateDatabaseError(err: unknown): unknown {
  if (isDatabaseUnavailable(err)) return new ServiceError('SERVICE_UNAVAILABLE', 'PostgreSQL is unavailable.', { retryAfter: 1, cause: err });
  return err;
}

/** Options of createDatabase. */
export interface DatabaseOptions {
  /** Connections in the pool. @default 20 */
  max?: number;
  /** Told how long (seconds) each transaction waited for a connection (the pool-wait metric). */
  onPoolWait?: (seconds: number) => void;
}

/** Opens a pool on `url`. Connection failures surface as SERVICE_UNAVAILABLE. */
export function createDatabase(url: string, opts: DatabaseOptions = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 20, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // A failed autocommit statement left nothing behind, so running it again is safe.
  const query = (async (...args: Parameters<pg.Pool['query']>) => {
    try {
      return await retryOnConflict(() => (pool.query as (...a: unknown[]) => Promise<unknown>)(...args));
    } catch (err) {
      throw translateDatabaseError(err);
    }
  }) as pg.Pool['query'];
  const once = async <T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    const asked = performance.now();
    try {
      client = await pool.connect();
    } catch (err) {
      throw translateDatabaseError(err);
    }
    opts.onPoolWait?.((performance.now() - asked) / 1000);
    // A connection lost while the transaction does work between statements is reported as an 'error' event of the
    // checked-out client; unheard, it would crash the process. The next statement fails with it instead.
    let broken: Error | undefined;
    const onError = (err: Error) => { broken = err; };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw translateDatabaseError(err);
    } finally {
      client.off('error', onError);
      // A broken connection is destroyed rather than handed to the next transaction.
      client.release(broken);
    }
  };
  return {
    pool,
    query,
    transaction: (fn) => retryOnConflict(() => once(fn)),
    close: () => pool.end(),
  };
}
