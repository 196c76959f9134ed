import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceCommand, waitForGateway } from '../helpers/service-process.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const children: ChildProcess[] = [];
test.after.always(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts `npm start`'s entry point as a child with its own DATA_DIR and waits for /readyz. */
async function startChild(dataDir: string, env: Record<string, string> = {}) {
  const [command, ...args] = serviceCommand();
  // Ports 0: the child binds free ports and prints them (ports picked here could be taken before it binds).
  const child = spawn(command!, args, {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    out += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
    stderr += d;
  });
  const url = await waitForGateway({ output: () => out, exited: () => child.exitCode !== null, timeoutMs: 60_000 });
  return { child, url, output: () => out, stdout: () => stdout, stderr: () => stderr };
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

test.serial(
  'npm start: prints where it listens and the key; SIGTERM stops Redis and PostgreSQL; a restart keeps the data',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    try {
      // Logging on: stdout must hold only JSON log lines; the banner is on stderr.
      const first = await startChild(dataDir, { LOG_LEVEL: 'info' });
      const out = first.stderr();
      t.regex(out, /REST gateway: http:\/\/127\.0\.0\.1:\d+/);
      t.regex(out, /gRPC: +127\.0\.0\.1:\d+/);
      const key = /platform key \(shown once, keep it secret\): (service_test_\S+)/.exec(out)?.[1];
      t.truthy(key);
      const created = await fetch(`${first.url}/api/v2/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ externalId: 'kept', name: 'Kept' }),
      });
      t.is(created.status, 200);
      const asset = await fetch(`${first.url}/console/assets/console.css`);
      t.is(asset.status, 200);
      await asset.arrayBuffer();
      const redisPid = Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8'));
      const pgPid = Number(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      t.true(alive(redisPid) && alive(pgPid));
      first.child.kill('SIGTERM');
      t.is(await exited(first.child), 0);
      const lines = first
        .stdout()
        .split('\n')
        .filter((l) => l !== '');
      t.true(lines.length > 0, 'JSON log lines on stdout');
      const logged = lines.map((l) => {
        try {
          return JSON.parse(l) as { route?: string; msg?: string };
        } catch {
          t.fail(`not a JSON log line on stdout: ${l}`);
          return {};
        }
      });
      t.false(first.stdout().includes('platform key'), 'the banner is not on stdout');
      // A console asset is logged by its path.
      t.true(logged.some((l) => l.msg === 'request' && l.route === '/console/assets/console.css'));
      t.false(logged.some((l) => l.route === 'unmatched'));
      t.false(alive(redisPid), 'redis-server stopped');
      t.false(alive(pgPid), 'PostgreSQL stopped');
      t.false(existsSync(join(dataDir, 'postgres', 'data', 'postmaster.pid')));

      const second = await startChild(dataDir);
      t.false(second.output().includes('platform key'), 'the key is printed only on the first start');
      const list = (await fetch(`${second.url}/api/v2/organizations`, {
        headers: { authorization: `Bearer ${key}` },
      }).then((r) => r.json())) as { data: { externalId: string }[] };
      t.true(list.data.some((o) => o.externalId === 'kept'));
      second.child.kill('SIGINT');
      t.is(await exited(second.child), 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

test('without redis-server on PATH the service exits with a one-line install hint', async (t) => {
  const bin = mkdtempSync(join(tmpdir(), 'no-redis-'));
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  const [command, ...args] = serviceCommand();
  const child = spawn(command!, args, {
    env: { ...process.env, PATH: bin, DATA_DIR: join(bin, 'data'), REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  t.is(await exited(child), 1);
  const lines = err.trim().split('\n');
  t.is(lines.length, 1);
  t.regex(lines[0]!, /redis-server was not found on PATH: install it \(Debian\/Ubuntu: apt-get install redis-server/);
  rmSync(bin, { recursive: true, force: true });
});
