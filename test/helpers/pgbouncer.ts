import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../src/launcher/find-free-port.js';

/** Where Debian's `pgbouncer` package installs the binary; PGBOUNCER_PATH points elsewhere. */
export const PGBOUNCER_PATH = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

/** A PgBouncer this test started, in front of one PostgreSQL. */
export interface TestPgBouncer {
  /** The URL of `databaseUrl`'s database through the pooler (same user, no password: loopback trust). */
  url: string;
  port: number;
  pid: number;
  /** The last lines of its log, for failure messages. */
  log(): string;
  /** SIGINT (PgBouncer's immediate shutdown), SIGKILL after 5 s; safe to call twice. */
  stop(): Promise<void>;
}

/** Options of startTestPgBouncer. */
export interface TestPgBouncerOptions {
  /** Server connections per database and user pair: few, so that many clients share each one. @default 5 */
  poolSize?: number;
  /** `pool_mode`. @default 'transaction' */
  poolMode?: 'session' | 'transaction' | 'statement';
  /**
   * Keep `poolSize` server connections open and hand them out in turn (`min_pool_size`, `server_round_robin`), so a
   * client's next transaction lands on another server connection even when it runs alone: session state that leaks
   * past a transaction shows at once instead of under load only. @default true
   */
  rotate?: boolean;
}

/** Answers the version line of the pgbouncer binary; throws a message saying how to install it when it is missing. */
export function pgbouncerVersion(): string {
  const r = existsSync(PGBOUNCER_PATH) ? spawnSync(PGBOUNCER_PATH, ['--version'], { encoding: 'utf8' }) : undefined;
  if (!r || r.status !== 0)
    throw new Error(
      `pgbouncer is not installed at ${PGBOUNCER_PATH} (Debian/Ubuntu: apt-get install pgbouncer; .ci/run installs it; PGBOUNCER_PATH points elsewhere)`,
    );
  return r.stdout.split('\n')[0] ?? '';
}

/** Resolves once something accepts TCP connections on loopback `port`, or rejects after `ms`. */
async function waitForPort(port: number, ms: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (open) return;
    if (!alive() || Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts the machine's pgbouncer (never its system service: a config file, port, pid and log of its own in a temp
 * directory) in front of the server of `databaseUrl`, with loopback `trust` for clients, the server password in the
 * config, and no `ignore_startup_parameters`: a client that sends a startup parameter PgBouncer does not track is
 * refused, as with the package's default configuration.
 */
export async function startTestPgBouncer(databaseUrl: string, opts: TestPgBouncerOptions = {}): Promise<TestPgBouncer> {
  pgbouncerVersion();
  const server = new URL(databaseUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const dir = mkdtempSync(join(process.env.TEST_DATA_DIR ?? tmpdir(), 'pgbouncer-'));
  const port = await findFreePort();
  const logFile = join(dir, 'pgbouncer.log');
  const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;
  const asRoot = process.getuid?.() === 0;
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'} user=${user} password=${quote(password)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${opts.poolMode ?? 'transaction'}`,
      `default_pool_size = ${opts.poolSize ?? 5}`,
      ...(opts.rotate === false ? [] : [`min_pool_size = ${opts.poolSize ?? 5}`, 'server_round_robin = 1']),
      'max_client_conn = 500',
      `logfile = ${logFile}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      // PgBouncer refuses to run as root; as root it switches to this user once it read its files.
      ...(asRoot ? ['user = postgres'] : []),
      '',
    ].join('\n'),
  );
  if (asRoot) {
    chmodSync(dir, 0o777);
    writeFileSync(logFile, '');
    chmodSync(logFile, 0o666);
  }
  const child = spawn(PGBOUNCER_PATH, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const log = () => {
    const file = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    return `${file}${stderr}`.split('\n').slice(-40).join('\n');
  };
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (!exited) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  try {
    await waitForPort(port, 10_000, () => !exited);
  } catch (err) {
    const text = log();
    await stop();
    throw new Error(`${(err as Error).message}:\n${text}`);
  }
  const url = new URL(databaseUrl);
  url.password = '';
  url.port = String(port);
  url.hostname = '127.0.0.1';
  return { url: url.toString(), port, pid: child.pid!, log, stop };
}
