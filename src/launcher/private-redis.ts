import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { findFreePort } from './find-free-port.js';
import { stopStaleProcess } from './stop-stale-process.js';

/** A redis-server child process owned by this service. */
export interface PrivateRedis {
  url: string;
  port: number;
  child: ChildProcess;
  /** Settles when the redis-server exits, whoever ended it (stop, a crash, kill -9). */
  exited: Promise<void>;
  /** SIGTERM (redis-server's SHUTDOWN: the AOF is flushed and fsynced); SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/** Thrown when redis-server is not installed; its message says how to install it. */
export class RedisNotInstalledError extends Error {
  constructor() {
    super(
      'redis-server was not found on PATH: install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL',
    );
  }
}

/** Answers whether a redis-server binary is on PATH. */
export function redisServerAvailable(): boolean {
  const r = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return r.error === undefined && r.status === 0;
}

/** Sends PING and resolves true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolvePing) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    socket.setTimeout(500);
    socket.once('data', (d) => {
      socket.destroy();
      resolvePing(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolvePing(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolvePing(false);
    });
  });
}

/**
 * Starts a private redis-server with AOF on (`appendfsync everysec`) and data in `dir`.
 * Resolves once it answers PING.
 */
export async function startPrivateRedis(opts: {
  dir: string;
  port?: number;
  appendOnly?: boolean;
}): Promise<PrivateRedis> {
  if (!redisServerAvailable()) throw new RedisNotInstalledError();
  mkdirSync(opts.dir, { recursive: true });
  const pidFile = join(opts.dir, 'redis.pid');
  await stopStaleProcess(pidFile);
  const port = opts.port ?? (await findFreePort());
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    opts.dir,
    '--save',
    '',
    '--appendonly',
    opts.appendOnly === false ? 'no' : 'yes',
    '--appendfsync',
    'everysec',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--logfile',
    '',
    '--pidfile',
    pidFile,
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  const exit = new Promise<void>((res) =>
    child.once('exit', () => {
      exited = true;
      res();
    }),
  );
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (exited) throw new Error(`redis-server exited during start-up (port ${port})`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('redis-server did not answer PING within 10 s');
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    exited: exit,
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
