import test, { type ExecutionContext } from 'ava';
import { childrenOf } from '../helpers/process-tree.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '../../src/persistence/database.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import {
  privateRedisPid,
  processAlive,
  startServiceProcess,
  waitForExit,
  waitForGateway,
  type ServiceProcess,
} from '../helpers/service-process.js';
import type { TestService } from '../helpers/test-service.js';

// The embedded default as `npm start` runs it (private redis-server and embedded PostgreSQL under DATA_DIR): a store
// killed with SIGKILL is restarted by the service itself, and SIGTERM of `npm start` stops node and both stores.
// Only processes these tests started are signalled: the service children, and the stores found through the pid files
// of the tests' own data directories (checked against /proc so a reused pid is never hit).
const ROOT = resolvePath(fileURLToPath(new URL('.', import.meta.url)), '../..');
const started: ServiceProcess[] = [];
const npmChildren: ChildProcess[] = [];
const dataDirs: string[] = [];

test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  for (const c of npmChildren) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const dir of dataDirs) {
    for (const pid of [privateRedisPid(dir), postmasterPid(dir)]) {
      if (pid && processAlive(pid) && ownedBy(pid, dir)) {
        process.kill(pid, 'SIGKILL');
        await waitForExit(pid, 5000);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A fresh data directory for one service (its private stores live below it). */
function newDataDir(name: string): string {
  const dir = join(process.env.TEST_DATA_DIR ?? '/tmp', `${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  dataDirs.push(dir);
  return dir;
}

/** The embedded PostgreSQL's postmaster pid under `dataDir` (first line of postmaster.pid), if the file exists. */
function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postgres', 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]?.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** Whether `pid` is a store working in `dataDir` (redis-server's cwd or the postmaster's data directory). */
function ownedBy(pid: number, dataDir: string): boolean {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return cwd === join(dataDir, 'redis') || cwd === join(dataDir, 'postgres', 'data');
  } catch {
    return false;
  }
}

/** The database URL of the embedded PostgreSQL under `dataDir` (password file beside the data, port in postmaster.pid). */
function embeddedDatabaseUrl(dataDir: string): string {
  const password = readFileSync(join(dataDir, 'postgres', 'password'), 'utf8').trim();
  const port = Number(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[3]);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/scheduling`;
}

/** Waits until `read` answers a pid other than `old` that is alive, at most `ms`. */
async function waitForNewPid(read: () => number | undefined, old: number, ms: number): Promise<number | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const pid = read();
    if (pid !== undefined && pid !== old && processAlive(pid)) return pid;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One answer of the burst: when it was sent and answered (ms since the burst began), its status and body. */
interface Answer {
  sentAt: number;
  answeredAt: number;
  status: number;
  code?: string;
  bookingId?: string;
  slotId: string;
}

/** POST with a bound: a request that hangs reads as status -1, a transport failure as 0. */
async function post(
  base: string,
  key: string,
  path: string,
  body: unknown,
  ms = 8000,
): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch (err) {
    return { status: (err as Error).name === 'TimeoutError' ? -1 : 0, body: String(err) };
  }
}

/** GET /readyz with a bound; -1 when it did not answer within `ms`. */
async function readyz(base: string, ms = 3000): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  try {
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(ms) });
    const body = (await res.json()) as { error?: { code?: string } };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
  } catch {
    return { status: -1, retryAfter: null };
  }
}

type Org = Awaited<ReturnType<typeof newOrganization>>;
const DAY_MS = 86_400_000;
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );
const attendee = { name: 'Pat Doe', email: 'pat@example.com' };

/** A provider bookable all day every day, and the v1 slot ids of `days` days starting 3 days ahead. */
async function bookableProvider(o: Org, name: string, days: number) {
  const { provider, service } = await providerWithService(
    o,
    { externalId: name },
    { title: 'Session', duration: 30, schedule: { timezone: 'UTC', days: everyDay('00:00', '23:59') } },
  );
  const slots: string[] = [];
  for (let d = 3; d < 3 + days; d++) {
    const date = new Date(Date.now() + d * DAY_MS).toISOString().slice(0, 10);
    const page = await o.api.get(`/api/v1/slots?providerId=${provider.id}&eventTypeId=${service.id}&date=${date}`);
    if (page.status !== 200) throw new Error(`slots: ${page.status} ${JSON.stringify(page.body)}`);
    slots.push(
      ...(page.body.slots as { id: string; available: boolean }[]).filter((s) => s.available).map((s) => s.id),
    );
  }
  return { provider, service, slots };
}

/**
 * Books v1 slots from `clients` concurrent loops, every slot asked for twice (two loops race for it), while `during`
 * runs; the loops stop once `during` has resolved and at least `after` ms more have passed. Answers every response.
 */
async function burst(
  base: string,
  o: Org,
  target: { provider: { id: string }; service: { id: string }; slots: string[] },
  during: (t0: number) => Promise<void>,
  opts: { clients: number; after: number },
): Promise<{ answers: Answer[]; t0: number }> {
  const queue = target.slots.flatMap((s) => [s, s]);
  const answers: Answer[] = [];
  const t0 = Date.now();
  let stopAt = Number.POSITIVE_INFINITY;
  const loop = async () => {
    while (queue.length > 0 && Date.now() < stopAt) {
      const slotId = queue.shift()!;
      const sentAt = Date.now() - t0;
      const r = await post(base, o.key, '/api/v1/bookings', {
        providerId: target.provider.id,
        serviceId: target.service.id,
        slotId,
        attendee,
      });
      answers.push({
        sentAt,
        answeredAt: Date.now() - t0,
        status: r.status,
        code: r.body?.error?.code,
        bookingId: r.status === 200 ? r.body?.data?.id : undefined,
        slotId,
      });
      // An outage answer is retried on a later slot: pause so the loops do not spin through the queue.
      if (r.status !== 200 && r.status !== 409) await new Promise((res) => setTimeout(res, 50));
    }
  };
  const loops = Array.from({ length: opts.clients }, loop);
  await during(t0);
  stopAt = Date.now() + opts.after;
  await Promise.all(loops);
  if (queue.length === 0) throw new Error('the burst ran out of slots; give it more days');
  return { answers, t0 };
}

/** Polls /readyz every 100 ms from now until `stop` is called; answers each probe with its time since `t0`. */
function watchReadiness(base: string, t0: number) {
  const seen: { at: number; answeredIn: number; status: number; retryAfter: string | null; code?: string }[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const sent = Date.now();
      const r = await readyz(base);
      seen.push({ at: sent - t0, answeredIn: Date.now() - sent, ...r });
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * Kills one private store with SIGKILL during a burst of bookings and checks the service's own recovery: 503 within
 * 1 s, bookings answered 200 again within 10 s without a restart of the service, /readyz truthful and bounded.
 */
async function killStoreDuringBurst(
  t: ExecutionContext,
  svc: ServiceProcess,
  o: Org,
  store: 'redis' | 'postgres',
  target: Awaited<ReturnType<typeof bookableProvider>>,
) {
  const readPid = () => (store === 'redis' ? privateRedisPid(svc.dataDir) : postmasterPid(svc.dataDir));
  const oldPid = readPid()!;
  t.true(processAlive(oldPid) && ownedBy(oldPid, svc.dataDir), `${store} runs under the service's data directory`);
  let killedAt = 0;
  let readiness: ReturnType<typeof watchReadiness> | undefined;
  let newPid: number | undefined;
  const { answers } = await burst(
    svc.url,
    o,
    target,
    async (t0) => {
      readiness = watchReadiness(svc.url, t0);
      // Let bookings flow first, so some are acknowledged before the store dies.
      while (Date.now() - t0 < 1500) await new Promise((r) => setTimeout(r, 25));
      process.kill(oldPid, 'SIGKILL');
      killedAt = Date.now() - t0;
      newPid = await waitForNewPid(readPid, oldPid, 20_000);
      // Keep booking until the service answers 200 again (or 15 s pass), then a little more.
      const until = Date.now() + 15_000;
      while (Date.now() < until && (await readyz(svc.url)).status !== 200) await new Promise((r) => setTimeout(r, 50));
    },
    { clients: 4, after: 1000 },
  );
  await readiness!.stop();

  t.truthy(newPid, `${store} was restarted by the service (new pid)`);
  t.false(svc.exited(), 'the service process itself kept running');
  const after = answers.filter((a) => a.sentAt >= killedAt);
  const unexpected = answers.filter(
    (a) =>
      ![200, 409, 503].includes(a.status) ||
      (a.status === 409 && a.code !== 'SLOT_UNAVAILABLE') ||
      (a.status === 503 && a.code !== 'SERVICE_UNAVAILABLE'),
  );
  t.deepEqual(
    unexpected.map((a) => `${a.status} ${a.code ?? ''}`),
    [],
    'only 200, 409 SLOT_UNAVAILABLE and 503 SERVICE_UNAVAILABLE (no 500, no hang, no reset)',
  );
  const first503 = answers.find((a) => a.status === 503 && a.answeredAt >= killedAt);
  t.truthy(first503, 'bookings answered 503 during the outage');
  const firstBack = after.find((a) => a.status === 200 && first503 !== undefined && a.sentAt >= first503.answeredAt);
  t.truthy(firstBack, 'bookings answered 200 again without a restart of the service');
  const slowest503 = Math.max(...after.filter((a) => a.status === 503).map((a) => a.answeredAt - a.sentAt));
  const readyDown = readiness!.seen.find((r) => r.at >= killedAt && r.status === 503);
  const readyBack = readiness!.seen.find((r) => readyDown !== undefined && r.at > readyDown.at && r.status === 200);
  const slowestReady = Math.max(...readiness!.seen.map((r) => r.answeredIn));
  t.log(
    `${store}: killed ${killedAt} ms into the burst; first 503 ${first503 ? first503.answeredAt - killedAt : '-'} ms after the kill (slowest 503 answer ${slowest503} ms); ` +
      `first 200 booking ${firstBack ? firstBack.answeredAt - killedAt : '-'} ms after; /readyz 503 at +${readyDown ? readyDown.at - killedAt : '-'} ms, 200 at +${readyBack ? readyBack.at - killedAt : '-'} ms (slowest /readyz ${slowestReady} ms); ` +
      `${answers.filter((a) => a.status === 200).length} acknowledged, ${answers.filter((a) => a.status === 409).length} x 409, ${answers.filter((a) => a.status === 503).length} x 503`,
  );
  t.true(first503 !== undefined && first503.answeredAt - killedAt <= 1000, 'the first 503 within 1 s of the kill');
  t.true(slowest503 <= 1000, 'every 503 answered within 1 s of its request');
  t.true(
    firstBack !== undefined && firstBack.answeredAt - killedAt <= 10_000,
    'bookings succeed again within 10 s of the kill',
  );
  t.true(readyDown !== undefined && readyDown.at - killedAt <= 1000, '/readyz says 503 within 1 s of the kill');
  t.is(readyDown?.retryAfter, '1');
  t.is(readyDown?.code, 'SERVICE_UNAVAILABLE');
  t.true(readyBack !== undefined && readyBack.at - killedAt <= 10_000, '/readyz says 200 again within 10 s');
  t.true(
    readiness!.seen.every((r) => r.status === 200 || r.status === 503),
    '/readyz always answered, 200 or 503',
  );
  t.true(slowestReady <= 1500, '/readyz never waits on a store for more than its bound');
  return answers;
}

/** Every acknowledged booking is readable and stored; no two live bookings of the provider overlap. */
async function assertBookingsKept(
  t: ExecutionContext,
  svc: ServiceProcess,
  o: Org,
  providerId: string,
  answers: Answer[],
) {
  const acked = answers.filter((a) => a.status === 200);
  t.true(acked.length > 0);
  t.is(new Set(acked.map((a) => a.slotId)).size, acked.length, 'no slot acknowledged twice');
  for (const a of acked) {
    const read = await client(svc.url, o.key).get(`/api/v2/bookings/${a.bookingId}`);
    t.is(read.status, 200, `acknowledged booking ${a.bookingId} is readable`);
  }
  const db = createDatabase(embeddedDatabaseUrl(svc.dataDir), { max: 1 });
  try {
    const overlaps = await db.query(
      `SELECT x.id, y.id FROM bookings x JOIN bookings y ON x.provider_id = y.provider_id AND x.id < y.id AND tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
       WHERE x.status IN ('pending', 'confirmed') AND y.status IN ('pending', 'confirmed') AND x.provider_id = $1`,
      [providerId],
    );
    t.deepEqual(overlaps.rows, [], 'no overlapping live bookings');
    const stored = await db.query('SELECT id FROM bookings WHERE id = ANY($1)', [acked.map((a) => a.bookingId)]);
    t.is(stored.rowCount, acked.length, 'every acknowledged booking is in the ledger');
  } finally {
    await db.close();
  }
}

test.serial(
  'kill -9 of the private redis-server, then of the embedded PostgreSQL, during bookings: 503 at once, 200 again without a restart',
  async (t) => {
    t.timeout(240_000);
    const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
    // No store URLs: the service starts both private stores under its DATA_DIR, as `npm start` does.
    const svc = await startServiceProcess({
      databaseUrl: '',
      platformKey,
      dataDir: newDataDir('supervised'),
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
      readyTimeoutMs: 120_000,
    });
    started.push(svc);
    const o = await newOrganization(
      { url: svc.url, platformKey } as unknown as TestService,
      `supervised-${randomBytes(3).toString('hex')}`,
    );

    const forRedis = await bookableProvider(o, 'redis-kill', 16);
    const redisAnswers = await killStoreDuringBurst(t, svc, o, 'redis', forRedis);
    await assertBookingsKept(t, svc, o, forRedis.provider.id, redisAnswers);

    const forPostgres = await bookableProvider(o, 'postgres-kill', 16);
    const pgAnswers = await killStoreDuringBurst(t, svc, o, 'postgres', forPostgres);
    await assertBookingsKept(t, svc, o, forPostgres.provider.id, pgAnswers);
    // Crash recovery flushes the data directory once (syncfs), not file by file: most of a restart on a loaded host.
    const db = createDatabase(embeddedDatabaseUrl(svc.dataDir), { max: 1 });
    try {
      const method = await db.query<{ recovery_init_sync_method: string }>('SHOW recovery_init_sync_method');
      t.is(method.rows[0]?.recovery_init_sync_method, 'syncfs', 'the restarted PostgreSQL recovers with syncfs');
    } finally {
      await db.close();
    }
    // What was booked before the first outage is still there after the second.
    await assertBookingsKept(t, svc, o, forRedis.provider.id, redisAnswers);
  },
);

test.serial(
  'SIGTERM of `npm start` stops node, redis-server and PostgreSQL cleanly, answering in-flight requests',
  async (t) => {
    t.timeout(180_000);
    const dataDir = newDataDir('npm-start');
    const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of ['REDIS_URL', 'DATABASE_URL', 'GRPC_TARGET', 'SERVICE_ROLES', 'TEST_REDIS_URL']) delete env[k];
    Object.assign(env, {
      DATA_DIR: dataDir,
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    npmChildren.push(npm);
    let out = '';
    npm.stdout!.on('data', (d) => {
      out += d;
    });
    npm.stderr!.on('data', (d) => {
      out += d;
    });
    const npmExit = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    const url = await waitForGateway({ output: () => out, exited: () => npm.exitCode !== null, timeoutMs: 120_000 });

    // npm runs the start script through `sh -c`; with `exec` the shell becomes node, so npm's child is the service.
    const [node] = childrenOf(npm.pid!);
    t.truthy(node, 'npm has one child');
    t.regex(
      readFileSync(`/proc/${node}/cmdline`, 'utf8'),
      /src\/main\.ts/,
      "npm's child is the service itself, not a shell",
    );
    const redisPid = privateRedisPid(dataDir)!;
    const pgPid = postmasterPid(dataDir)!;
    t.true(processAlive(redisPid) && ownedBy(redisPid, dataDir) && processAlive(pgPid) && ownedBy(pgPid, dataDir));

    const o = await newOrganization({ url, platformKey } as unknown as TestService, 'npm-start');
    const target = await bookableProvider(o, 'sigterm', 8);
    const nodeExit = new Promise<boolean>((r) => {
      const poll = setInterval(() => {
        if (!processAlive(node!)) {
          clearInterval(poll);
          r(true);
        }
      }, 25);
    });
    let signalledAt = 0;
    let nodeGoneAt = 0;
    const { answers } = await burst(
      url,
      o,
      target,
      async (t0) => {
        while (Date.now() - t0 < 1000) await new Promise((r) => setTimeout(r, 25));
        signalledAt = Date.now();
        npm.kill('SIGTERM');
        await nodeExit;
        nodeGoneAt = Date.now();
      },
      { clients: 4, after: 0 },
    );
    t.is(await npmExit, 0, `npm start exits 0 (its child exited 0):\n${out.slice(-2000)}`);
    t.true(await waitForExit(redisPid, 15_000), 'redis-server stopped');
    t.true(await waitForExit(pgPid, 15_000), 'PostgreSQL stopped');
    t.log(
      `node exited ${nodeGoneAt - signalledAt} ms after SIGTERM, stores gone ${Date.now() - signalledAt} ms after; answers: ${[...new Set(answers.map((a) => a.status))].map((s) => `${s} x ${answers.filter((a) => a.status === s).length}`).join(', ')}`,
    );
    t.false(
      existsSync(join(dataDir, 'postgres', 'data', 'postmaster.pid')),
      'PostgreSQL shut down cleanly (no postmaster.pid left)',
    );
    // Requests answered before the process went away got real answers: none was cut off with a 5xx by the stores stopping.
    const served = answers.filter((a) => a.status > 0);
    t.true(served.length > 0);
    t.deepEqual(
      served.filter((a) => a.status !== 200 && a.status !== 409).map((a) => `${a.status} ${a.code ?? ''}`),
      [],
      'no 5xx while draining',
    );
  },
);
