import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runMigrations } from '../../src/persistence/run-migrations.js';

/** The admin URL of the PostgreSQL the test run started (scripts/run-tests.mjs) or was given. */
export function adminDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'TEST_DATABASE_URL is not set: run the tests with `npm test` (scripts/run-tests.mjs starts PostgreSQL)',
    );
  return url;
}

/** `url` with its database name replaced by `name`. */
function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates a fresh database for one test file and returns its URL and a drop function. `schema: 'migrated'` gives one
 * with every migration applied, copied from the run's template (`TEST_TEMPLATE_DATABASE`, made once by
 * scripts/run-tests.mjs, see createMigratedTemplate): a copy takes a fraction of the time the migrations take. Without a
 * template it is migrated here. By default the database is empty, as a new deployment's is.
 */
export async function createTestDatabase(
  opts: { schema?: 'empty' | 'migrated' } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = adminDatabaseUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = opts.schema === 'migrated' ? process.env.TEST_TEMPLATE_DATABASE : undefined;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await c.end();
  const url = databaseUrl(admin, name);
  if (opts.schema === 'migrated' && !template) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await runMigrations(pool).finally(() => pool.end());
  }
  return {
    url,
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

/**
 * Creates a database named `name` on the cluster of `adminUrl` with every migration applied, for createTestDatabase to
 * copy (`CREATE DATABASE ... TEMPLATE`); nothing stays connected to it. Returns its drop function.
 */
export async function createMigratedTemplate(adminUrl: string, name: string): Promise<() => Promise<void>> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const pool = new pg.Pool({ connectionString: databaseUrl(adminUrl, name), max: 1 });
  await runMigrations(pool).finally(() => pool.end());
  return async () => {
    const d = new pg.Client({ connectionString: adminUrl });
    await d.connect();
    await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => d.end());
  };
}
