import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ServiceError } from '../errors/service-error.js';
import type { Tracing } from '../observability/create-tracing.js';
import { assertCallLive, callOutOfTime, currentCallScope } from './call-scope.js';
import { UnnamedStatementClient } from './unnamed-statement-client.js';
import { postgresSpanAttributes, tracedQuery } from './traced-query.js';

/** A query runner: the pool itself or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/** Options of one transaction. */
export interface TransactionOptions {
  /**
   * A job's bound instead of a call's, in milliseconds: the transaction's `statement_timeout` and
   * `idle_in_transaction_session_timeout` raised to at least this (a longer bound configured stays, and so does none),
   * and the client waits for each of its answers that much longer. For a job (an import) that must end rather than be
   * refused: its statements, and the pauses between them while its process does other work (a graph copy on a loaded
   * host), may outlast a request's bounds (5 s by default) without anything being wrong.
   */
  boundMs?: number;
}

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
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Calls `listener` with the change tags (tagChange) of each transaction once it has committed; never for one that
   * rolled back. Returns the function that removes the listener.
   */
  onCommit(listener: (tags: readonly string[]) => void): () => void;
  /** Whether the pool reaches PostgreSQL through a transaction pooler: no session outlives a transaction. */
  readonly transactionPooler: boolean;
  close(): Promise<void>;
}

/**
 * Runs `fn` in one read-only REPEATABLE READ transaction, so every statement it makes reads the same snapshot: a page
 * and the total counted beside it agree even while rows are being added.
 */
export function readOneSnapshot<T>(db: Database, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return fn(tx);
  });
}

/** The change tags of each open transaction, by its connection. */
const openTransactionTags = new WeakMap<object, Set<string>>();

/**
 * Marks that the transaction running on `tx` changes what `tag` names (such as `organization:<id>`): the database's
 * commit listeners hear it once the transaction commits (caches drop what it changed). Outside a transaction (`tx` is
 * the pool) it does nothing: every writer of a cached row writes inside one.
 */
export function tagChange(tx: Queryable, tag: string): void {
  openTransactionTags.get(tx)?.add(tag);
}

/** How often a statement or transaction aborted by a deadlock or serialization failure runs before the error surfaces. */
export const CONFLICT_ATTEMPTS = 4;
const CONFLICT_CODES = new Set(['40P01', '40001']);

/** Answers whether PostgreSQL aborted the work for a deadlock or a serialization failure (safe to run again). */
export function isTransientConflict(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return (
    (typeof e?.code === 'string' && CONFLICT_CODES.has(e.code)) ||
    (typeof e?.cause?.code === 'string' && CONFLICT_CODES.has(e.cause.code))
  );
}

/** The error a client gets when the last attempt still conflicted: 503, recoverable, with Retry-After. */
function conflictUnavailable(err: unknown): ServiceError {
  return new ServiceError(
    'SERVICE_UNAVAILABLE',
    'PostgreSQL aborted the request for a lock conflict several times; retry it.',
    { retryAfter: 1, cause: err },
  );
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

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
// PostgreSQL's own bounds: statement_timeout (57014), lock_timeout (55P03), idle_in_transaction_session_timeout
// (25P03), transaction_timeout (25P04), idle_session_timeout (57P05). The work was refused; a retry may pass.
const TIMEOUT_CODES = new Set(['57014', '55P03', '25P03', '25P04', '57P05']);
/** pg's own message when PostgreSQL sent no answer within `query_timeout` (the server hung, not the query slow). */
const READ_TIMEOUT = /Query read timeout/;

/** Answers whether an error means PostgreSQL is unreachable or did not answer in time (as opposed to a bad query). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || TIMEOUT_CODES.has(e.code))) return true;
  const m = e.message ?? '';
  // `timeout exceeded when trying to connect` is the pool giving up on a free connection: busy or down, a retry may pass.
  return (
    READ_TIMEOUT.test(m) ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(
      m,
    )
  );
}

/** Answers whether a connection that failed with `err` is unusable (no answer, or gone): it is dropped, not rolled back. */
function connectionLost(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return isDatabaseUnavailable(err) && !(e?.code !== undefined && (e.code === '57014' || e.code === '55P03'));
}

/** Converts an unreachable-database error into 503 SERVICE_UNAVAILABLE; passes others through. */
export function translateDatabaseError(err: unknown): unknown {
  if (!isDatabaseUnavailable(err)) return err;
  const e = err as { code?: string; message?: string };
  const late = (e.code !== undefined && TIMEOUT_CODES.has(e.code)) || READ_TIMEOUT.test(e.message ?? '');
  return new ServiceError(
    'SERVICE_UNAVAILABLE',
    late ? 'PostgreSQL did not answer in time.' : 'PostgreSQL is unavailable.',
    { retryAfter: 1, cause: err },
  );
}

/**
 * Bounds on PostgreSQL work, in milliseconds (0 = none); docs/operations.md "Hung stores and deadlines". Without
 * them (tools, tests) statements may run as long as they take.
 */
export interface DatabaseTimeouts {
  /** `statement_timeout` and `idle_in_transaction_session_timeout`; the client gives up READ_MARGIN_MS later. */
  statementMs: number;
  /** `lock_timeout`. */
  lockMs: number;
  /** Wait for a pool connection, a new connection's start-up included. */
  poolWaitMs: number;
  /**
   * Longest life of a transaction run for a call (PostgreSQL 17+: `transaction_timeout`, armed at BEGIN): past it the
   * transaction can no longer commit, so a COMMIT whose answer never came is known not to have happened once it passed.
   */
  transactionMs: number;
}

/**
 * How much longer than `statement_timeout` the client waits for an answer: a live server cancels the statement first
 * (a clean error); a hung one (stopped, partitioned) never answers, and the connection is dropped.
 */
const READ_MARGIN_MS = 1000;
/** How long past a transaction's fence the client still waits for its COMMIT's answer (timer and clock jitter). */
const FENCE_MARGIN_MS = 500;
/** The first PostgreSQL with `transaction_timeout`. */
const FENCE_MIN_VERSION = 170000;

/**
 * Wraps a client's `query` so that each statement waits `ms` for its answer (`query_timeout`) unless it names its own
 * wait; a submittable (a cursor) passes as it is.
 */
function withReadTimeout(query: pg.PoolClient['query'], ms: number): pg.PoolClient['query'] {
  return ((config: unknown, ...rest: unknown[]) => {
    const own =
      typeof config === 'string'
        ? { text: config, query_timeout: ms }
        : config && typeof config === 'object' && typeof (config as { submit?: unknown }).submit !== 'function'
          ? { query_timeout: ms, ...(config as object) }
          : config;
    return (query as (...a: unknown[]) => unknown)(own, ...rest);
  }) as pg.PoolClient['query'];
}

/** Options of createDatabase. */
export interface DatabaseOptions {
  /** Connections in the pool. @default 20 */
  max?: number;
  /** Told how long (seconds) each transaction waited for a connection (the pool-wait metric). */
  onPoolWait?: (seconds: number) => void;
  /** Bounds on statements, lock waits, pool waits and call transactions; unset, only the pool wait is bounded (3 s). */
  timeouts?: DatabaseTimeouts;
  /** Tracing, when on: each statement of a traced request or job gets a span (traced-query.ts). */
  tracing?: Tracing;
  /**
   * `url` leads to a transaction pooler (detectTransactionPooler): nothing the service relies on may outlive a
   * transaction. The bounds are set with `SET LOCAL` in each transaction instead of as startup parameters (PgBouncer
   * refuses those it does not track), an autocommit statement runs in a transaction of its own when there are bounds
   * to set, and statements are unnamed (UnnamedStatementClient). @default false
   */
  transactionPooler?: boolean;
}

/** The `SET LOCAL` commands that bound one transaction as the startup parameters bound a direct connection. */
function localBounds(t: DatabaseTimeouts | undefined): string[] {
  if (!t) return [];
  // Integers from the configuration, never from a request: safe to write into the command.
  return [
    `SET LOCAL statement_timeout = ${Math.floor(t.statementMs)}`,
    `SET LOCAL idle_in_transaction_session_timeout = ${Math.floor(t.statementMs)}`,
    `SET LOCAL lock_timeout = ${Math.floor(t.lockMs)}`,
  ];
}

/**
 * Opens a pool on `url`. Connection failures and timeouts surface as SERVICE_UNAVAILABLE. With `timeouts`, every
 * statement runs with `statement_timeout`, `lock_timeout` and `idle_in_transaction_session_timeout` (startup
 * parameters of each connection, or `SET LOCAL` in each transaction behind a transaction pooler), the client stops
 * waiting for an answer shortly after (`query_timeout`: a hung server never cancels anything itself), and a
 * transaction run for a call is fenced: it cannot commit after its deadline (see `DatabaseTimeouts.transactionMs`).
 */
export function createDatabase(url: string, opts: DatabaseOptions = {}): Database {
  const t = opts.timeouts;
  const pooler = opts.transactionPooler === true;
  const readTimeoutMs = t && t.statementMs > 0 ? t.statementMs + READ_MARGIN_MS : undefined;
  // Behind a transaction pooler the bounds open each transaction (`localBounds`): empty when direct.
  const bounds = pooler ? localBounds(t) : [];
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 20,
    connectionTimeoutMillis: t ? t.poolWaitMs : 3000,
    idleTimeoutMillis: 30_000,
    ...(pooler ? { Client: UnnamedStatementClient } : {}),
    ...(t && !pooler
      ? {
          statement_timeout: t.statementMs,
          idle_in_transaction_session_timeout: t.statementMs,
          lock_timeout: t.lockMs,
        }
      : {}),
    ...(t ? { query_timeout: readTimeoutMs } : {}),
  });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // pg-pool drops its own error listener when it hands a client over, and the new holder adds one only when its code
  // runs again: an error parsed in between (PostgreSQL's shutdown FATAL read in the same chunk as the last answer)
  // would be unheard and crash the process. Heard here, it leaves the client unqueryable: the holder's next
  // statement fails with it (503) and the pool drops the client on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Whether the server has `transaction_timeout` (PostgreSQL 17+); learnt from the first call transaction.
  let fenceSupported: boolean | undefined;
  const tracing = opts.tracing;
  const spanAttributes = tracing ? postgresSpanAttributes(url) : {};
  const poolQuery = (...a: unknown[]) => (pool.query as (...q: unknown[]) => Promise<unknown>)(...a);
  // Off, statements go to the pool as they did before tracing existed: no wrapper in between.
  const traced = tracing ? tracedQuery(tracing, poolQuery, spanAttributes) : undefined;
  // A failed autocommit statement left nothing behind, so running it again is safe. Behind a transaction pooler with
  // bounds to set, it runs in a transaction of its own: a bound set outside one would stay on a shared server connection.
  const query = (async (...args: Parameters<pg.Pool['query']>) => {
    assertCallLive(currentCallScope());
    if (bounds.length > 0)
      return retryOnConflict(() => once((c) => (c.query as (...a: unknown[]) => Promise<unknown>)(...args)));
    try {
      return await retryOnConflict(() =>
        traced ? traced(...args) : (pool.query as (...a: unknown[]) => Promise<unknown>)(...args),
      );
    } catch (err) {
      throw translateDatabaseError(err);
    }
  }) as pg.Pool['query'];
  const commitListeners = new Set<(tags: readonly string[]) => void>();
  const once = async <T>(fn: (tx: pg.PoolClient) => Promise<T>, topts?: TransactionOptions): Promise<T> => {
    const scope = currentCallScope();
    // A job's bound (TransactionOptions.boundMs): only ever raised, and only when statements are bounded at all.
    const jobMs =
      topts?.boundMs !== undefined && t && t.statementMs > 0 && topts.boundMs > t.statementMs
        ? Math.floor(topts.boundMs)
        : undefined;
    const jobBounds =
      jobMs === undefined
        ? []
        : [`SET LOCAL statement_timeout = ${jobMs}`, `SET LOCAL idle_in_transaction_session_timeout = ${jobMs}`];
    // A call that is gone or out of time starts no transaction.
    assertCallLive(scope);
    const fenceMs =
      scope && t && t.transactionMs > 0
        ? Math.min(t.transactionMs, Math.floor(scope.deadline - Date.now() - FENCE_MARGIN_MS))
        : undefined;
    if (fenceMs !== undefined && fenceMs <= 0) throw callOutOfTime();
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
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    // Traced: this transaction's statements (BEGIN and COMMIT included) get spans; under a job's bound each waits for its
    // answer that much longer. The connection goes back plain.
    const wrapped = tracing !== undefined || jobMs !== undefined;
    const ownQuery = wrapped ? Object.getOwnPropertyDescriptor(client, 'query') : undefined;
    if (tracing) client.query = tracedQuery(tracing, client.query.bind(client), spanAttributes);
    if (jobMs !== undefined) client.query = withReadTimeout(client.query.bind(client), jobMs + READ_MARGIN_MS);
    const tags = new Set<string>();
    openTransactionTags.set(client, tags);
    try {
      let fenceAt: number | undefined;
      if (fenceMs !== undefined && fenceSupported === undefined) {
        fenceSupported =
          Number((await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]?.v) >=
          FENCE_MIN_VERSION;
      }
      // The bounds and the fence go with BEGIN in one simple query: no round trip of their own.
      if (fenceMs !== undefined && fenceSupported) {
        // The server arms the timer when it runs BEGIN, before this answer arrives: the fence is at most fenceMs from
        // now. Past it PostgreSQL refuses to commit, even a COMMIT it reads only after resuming from a stop.
        await client.query(['BEGIN', ...bounds, ...jobBounds, `SET LOCAL transaction_timeout = ${fenceMs}`].join('; '));
        fenceAt = Date.now() + fenceMs;
      } else {
        await client.query(['BEGIN', ...bounds, ...jobBounds].join('; '));
      }
      const result = await fn(client);
      // The caller stopped waiting (cancelled, or its deadline passed): roll back rather than commit unseen.
      assertCallLive(scope);
      // A COMMIT without an answer may still be carried out until the fence passes: wait until then, so that a 503
      // given for it means it did not happen (unless PostgreSQL was already inside the commit when it stopped).
      const commitWait =
        fenceAt === undefined ? undefined : Math.max(readTimeoutMs ?? 0, fenceAt + FENCE_MARGIN_MS - Date.now());
      await client.query(
        commitWait === undefined ? 'COMMIT' : ({ text: 'COMMIT', query_timeout: commitWait } as pg.QueryConfig),
      );
      if (tags.size > 0) {
        const committed = [...tags];
        for (const listener of commitListeners) listener(committed);
      }
      return result;
    } catch (err) {
      // A connection that did not answer or is gone is dropped (the server rolls back when it sees it closed); a
      // ROLLBACK sent on it would only wait behind the statement that hangs.
      if (broken === undefined && !connectionLost(err)) await client.query('ROLLBACK').catch(() => undefined);
      else broken ??= err as Error;
      throw translateDatabaseError(err);
    } finally {
      if (wrapped) {
        if (ownQuery) Object.defineProperty(client, 'query', ownQuery);
        else delete (client as { query?: unknown }).query;
      }
      openTransactionTags.delete(client);
      client.off('error', onError);
      // A broken connection is destroyed rather than handed to the next transaction.
      client.release(broken);
    }
  };
  return {
    pool,
    query,
    transactionPooler: pooler,
    transaction: (fn, topts) => retryOnConflict(() => once(fn, topts)),
    onCommit(listener) {
      commitListeners.add(listener);
      return () => commitListeners.delete(listener);
    },
    close: () => pool.end(),
  };
}
