import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number works; it only has to be the same in every process of the service.
const MIGRATION_LOCK_ID = 7_245_001;

/** A versioned plain-SQL migration file (`NNNN_name.sql`). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migration files in version order. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.slice(5, -4), sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * Applies pending migrations, each in its own transaction, under a transaction-scoped PostgreSQL advisory lock so
 * several processes can start at once. Returns the versions applied by this call. Nothing outlives a transaction (no
 * session lock, no `SET`), so migrations run as well through a transaction pooler such as PgBouncer as on a direct
 * connection. They run on a connection of their own, to the pool's database but without its request bounds
 * (statement, lock and read timeouts, switched off with `SET LOCAL`): a migration may rightly take minutes, and so may
 * the wait for another process's migrations.
 */
export async function runMigrations(pool: pg.Pool, migrations = readMigrations()): Promise<number[]> {
  const o = pool.options;
  // The pool keeps its password out of enumeration, so it is copied by name. Its bounds are left out: startup
  // parameters a pooler would refuse, and too short for a migration.
  const {
    statement_timeout: _statement,
    lock_timeout: _lock,
    idle_in_transaction_session_timeout: _idle,
    query_timeout: _read,
    ...rest
  } = o as pg.PoolConfig;
  const client = new pg.Client({ ...rest, password: o.password });
  // A lost connection fails the statement in flight; the event itself must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  const applied: number[] = [];
  try {
    for (;;) {
      // One transaction per migration; the lock, taken first in each, goes with its COMMIT or ROLLBACK. Which
      // migrations are done is read under it: another process may have applied some while this one waited.
      await client.query(
        `BEGIN; SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0`,
      );
      let m: Migration | undefined;
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
        await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        const done = new Set(
          (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
        );
        m = migrations.find((x) => !done.has(x.version));
        if (m) {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (!m) throw err;
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      if (!m) break;
      applied.push(m.version);
    }
  } finally {
    await client.end();
  }
  return applied;
}
