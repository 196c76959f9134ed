import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { IDEMPOTENCY_LEASE_MS } from '../../src/application/idempotency.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { claimLockKey } from '../../src/persistence/slot-claims.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client, type JsonResponse } from '../helpers/http.js';
import {
  privateRedisPid,
  processAlive,
  startServiceProcess,
  waitForExit,
  type ServiceProcess,
} from '../helpers/service-process.js';
import { startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// Service processes are children; a victim is killed with SIGKILL while its confirm waits in PostgreSQL (the test holds
// the provider's claim lock), so the request is caught between its Idempotency-Key claim and its answer. Serial: the
// tests share three processes on one PostgreSQL and one Redis.
const started: ServiceProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
let stores: TestStores;
let db: Database;
let survivor: ServiceProcess;
const victims: ServiceProcess[] = [];

test.before(async () => {
  stores = await startTestStores();
  cleanups.push(() => stores.stop());
  db = createDatabase(stores.databaseUrl, { max: 4 });
  cleanups.push(() => db.close());
  const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
  const common = { databaseUrl: stores.databaseUrl, redisUrl: stores.redisUrl, platformKey };
  // The first process bootstraps the platform; the victims start next to each other.
  survivor = await spawnService({ ...common, dataDir: newDataDir('survivor') });
  victims.push(
    ...(await Promise.all([1, 2].map((i) => spawnService({ ...common, dataDir: newDataDir(`victim-${i}`) })))),
  );
});

test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  for (const p of started) {
    // Shared Redis: no service started its own, but a leftover one in its data dir would be ours to stop.
    const pid = privateRedisPid(p.dataDir);
    if (pid && processAlive(pid) && ownRedis(pid, p.dataDir)) {
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, 5000);
    }
  }
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Whether `pid` is the redis-server working in `dir/redis` (guards against a reused pid). */
function ownRedis(pid: number, dir: string): boolean {
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === join(dir, 'redis');
  } catch {
    return false;
  }
}

/** A fresh data directory under the test run's data folder. */
function newDataDir(name: string): string {
  const dir = join(process.env.TEST_DATA_DIR ?? '/tmp', `idem-crash-${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Starts a service child process and remembers it for clean-up. */
async function spawnService(opts: Parameters<typeof startServiceProcess>[0]): Promise<ServiceProcess> {
  const p = await startServiceProcess(opts);
  started.push(p);
  return p;
}

const customer = { name: 'Pat Doe', email: 'pat@example.com' };
const DAY_MS = 86_400_000;
const day = new Date(Date.now() + 5 * DAY_MS).toISOString().slice(0, 10);
const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const everyDay = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    { enabled: true, slots: [{ start: '09:00', end: '17:00' }] },
  ]),
);

/** An organization with one provider and a resolution over `day`. */
async function resolved(name: string) {
  const o = await newOrganization(
    { url: survivor.url, platformKey: survivor.platformKey } as unknown as TestService,
    `${name}-${randomUUID().slice(0, 8)}`,
  );
  const { provider, service } = await providerWithService(
    o,
    { externalId: 'p1' },
    { duration: 60, schedule: { timezone: 'UTC', days: everyDay } },
  );
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: service.id, dateRange: { from: day, to: nextDay } },
    { 'idempotency-key': randomUUID() },
  );
  if (r.status !== 200) throw new Error(`resolution failed: ${r.status} ${JSON.stringify(r.body)}`);
  return {
    o,
    providerId: provider.id as string,
    r: r.body as { resolutionId: string; options: { optionId: string }[] },
  };
}

/** Holds the provider's claim lock in an open transaction of the test's own, so a confirm of it waits there. */
async function holdClaimLock(providerId: string) {
  const c = new pg.Client({ connectionString: stores.databaseUrl });
  await c.connect();
  await c.query('BEGIN');
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [claimLockKey(providerId)]);
  return {
    async release() {
      await c.query('ROLLBACK');
      await c.end();
    },
  };
}

/** How many backends of the test database wait for an advisory lock. */
const lockWaiters = async () =>
  Number(
    (
      await db.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      )
    ).rows[0].n,
  );

/** Waits (bounded) until `check` holds. */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A request whose transport failure (the process died) reads as status 0. */
async function attempt(send: () => Promise<JsonResponse>): Promise<JsonResponse> {
  try {
    return await send();
  } catch (err) {
    return { status: 0, headers: new Headers(), body: String(err) };
  }
}

/**
 * Sends a confirm to `victim` with `key` and kills the victim with SIGKILL while the confirm waits for the claim lock
 * the test holds; `afterKill` decides whether the confirm's statement gets the lock (and commits, the process being
 * dead) or times out on it. Answers the instant of the kill.
 */
async function killMidConfirm(
  t: ExecutionContext,
  victim: ServiceProcess,
  s: Awaited<ReturnType<typeof resolved>>,
  key: string,
  afterKill: (lock: { release(): Promise<void> }) => Promise<void>,
): Promise<number> {
  const lock = await holdClaimLock(s.providerId);
  const sent = attempt(() =>
    client(victim.url, s.o.key).post(
      `/api/v2/resolutions/${s.r.resolutionId}/confirm`,
      { optionId: s.r.options[0]!.optionId, customer },
      { 'idempotency-key': key },
    ),
  );
  await until('the confirm waits for the claim lock', async () => (await lockWaiters()) === 1);
  // The signal first, the wait for the process's exit after `afterKill`: the statement's lock_timeout (2 s) runs from
  // the start of its wait, and a loaded host can take longer than that to report the exit.
  process.kill(victim.pid, 'SIGKILL');
  const killedAt = Date.now();
  await afterKill(lock);
  await victim.kill('SIGKILL');
  t.is((await sent).status, 0, 'the victim died before answering');
  return killedAt;
}

/** Retries a confirm with `key` on the survivor until it is no longer in progress (bounded); answers it and when. */
async function retryOnSurvivor(s: Awaited<ReturnType<typeof resolved>>, key: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await client(survivor.url, s.o.key).post(
      `/api/v2/resolutions/${s.r.resolutionId}/confirm`,
      { optionId: s.r.options[0]!.optionId, customer },
      { 'idempotency-key': key },
    );
    if (res.body?.error?.code !== 'IDEMPOTENCY_REQUEST_IN_PROGRESS' || Date.now() > deadline)
      return { res, at: Date.now() };
  }
}

const bookingsOf = async (resolutionId: string) =>
  (await db.query('SELECT id FROM bookings WHERE resolution_id = $1', [resolutionId])).rows.map((r) => r.id as string);

test.serial(
  'a confirm whose process was killed after its booking committed is replayed on another process within the lease',
  async (t) => {
    t.timeout(90_000);
    const s = await resolved('crash-committed');
    const key = randomUUID();
    const killedAt = await killMidConfirm(t, victims[0]!, s, key, async (lock) => {
      // The dead process's statement gets the lock and commits: its answer never reached Redis.
      await lock.release();
      await until(
        'the dead process committed its booking',
        async () => (await bookingsOf(s.r.resolutionId)).length === 1,
      );
    });
    const [bookingId] = await bookingsOf(s.r.resolutionId);
    const { res, at } = await retryOnSurvivor(s, key);
    t.log(`the retry was answered ${at - killedAt} ms after the kill`);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.is(res.headers.get('idempotent-replayed'), 'true');
    t.is(res.body.id, bookingId);
    t.true(at - killedAt <= IDEMPOTENCY_LEASE_MS + 2500, `answered ${at - killedAt} ms after the kill`);
    t.deepEqual((await client(survivor.url, s.o.key).get(`/api/v2/bookings/${bookingId}`)).body, res.body);
    t.deepEqual(await bookingsOf(s.r.resolutionId), [bookingId]);
  },
);

test.serial(
  'a confirm whose process was killed before anything committed runs again on another process within the lease',
  async (t) => {
    t.timeout(90_000);
    const s = await resolved('crash-uncommitted');
    const key = randomUUID();
    const killedAt = await killMidConfirm(t, victims[1]!, s, key, async (lock) => {
      // The dead process's statement gives up on the lock (lock_timeout): nothing of it commits.
      await until('the dead process stopped waiting', async () => (await lockWaiters()) === 0);
      await lock.release();
    });
    t.deepEqual(await bookingsOf(s.r.resolutionId), []);
    const { res, at } = await retryOnSurvivor(s, key);
    t.log(`the retry was answered ${at - killedAt} ms after the kill`);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.is(res.headers.get('idempotent-replayed'), null);
    t.true(at - killedAt <= IDEMPOTENCY_LEASE_MS + 2500, `answered ${at - killedAt} ms after the kill`);
    t.deepEqual(await bookingsOf(s.r.resolutionId), [res.body.id]);
    const again = await retryOnSurvivor(s, key);
    t.is(again.res.headers.get('idempotent-replayed'), 'true');
    t.deepEqual(again.res.body, res.body);
  },
);
