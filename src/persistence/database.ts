import pg from 'pg';
import { ServiceError } from '../errors/service-error.js';

/** A query runner: the pool itself or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/** The PostgreSQL side of the service: a pool plus transactions. */
export interface Database {
  pool: pg.Pool;
  query: pg.Pool['query'];
  /** Runs `fn` in one transaction; rolls back on error. */
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
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
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(m);
}

/** Converts an unreachable-database error into 503 SERVICE_UNAVAILABLE; passes others through. */
export function translateDatabaseError(err: unknown): unknown {
  if (isDatabaseUnavailable(err)) return new ServiceError('SERVICE_UNAVAILABLE', 'PostgreSQL is unavailable.', { retryAfter: 1, cause: err });
  return err;
}

/** Opens a pool on `url`. Connection failures surface as SERVICE_UNAVAILABLE. */
export function createDatabase(url: string, opts: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 20, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const query = (async (...args: Parameters<pg.Pool['query']>) => {
    try {
      return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (err) {
      throw translateDatabaseError(err);
    }
  }) as pg.Pool['query'];
  return {
    pool,
    query,
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw translateDatabaseError(err);
      }
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw translateDatabaseError(err);
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
