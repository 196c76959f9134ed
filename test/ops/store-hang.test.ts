import test, { type ExecutionContext } from 'ava';
import { childrenOf } from '../helpers/process-tree.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type PrivatePostgres } from '../../src/launcher/embedded-postgres.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/launcher/private-redis.js';
import { createDatabase } from '../../src/persistence/database.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import type { TestService } from '../helpers/test-service.js';

// A hung store (SIGSTOP: connections stay open, nothing answers) during v1 bookings, against a service process on a
// PostgreSQL and a redis-server this file started itself; only those processes are signalled. The service runs with its
// default bounds (docs/operations.md "Hung stores and deadlines"): statements 5 s and the client 1 s more, call transactions 6 s
// (commit fence), Redis replies 2 s.
const base = join(process.env.TEST_DATA_DIR ?? tmpdir(), `store-hang-${randomBytes(4).toString('hex')}`);
/** Longest a request may take while PostgreSQL hangs: 5 s statement + 1 s read margin + 0.5 s fence margin, plus load. */
const PG_BOUND_MS = 8000;
/** Longest a request may take while Redis hangs: 2 s per reply, plus load. */
const REDIS_BOUND_MS = 4000;
/** How long each store stays stopped: longer than the bounds, so requests in flight meet them. */
const HANG_MS = 9000;

let pg: PrivatePostgres | undefined;
let redis: PrivateRedis | undefined;
let svc: ServiceProcess | undefined;
/** Processes this file stopped and has not resumed yet (resumed in the teardown whatever happens). */
const stopped = new Set<number>();

/** What PostgreSQL wrote to its log (stderr): the COMMITs it was carrying out when it stopped are read from it. */
let pgLog = '';

test.before(async () => {
  mkdirSync(base, { recursive: true });
  pg = await startEmbeddedPostgres({
    dir: join(base, 'postgres'),
    log: (chunk) => {
      pgLog += String(chunk);
    },
    extraFlags: [
      // When each booking committed.
      '-c',
      'track_commit_timestamp=on',
      // A statement that took 2 s or more is logged when it completes, with its duration, after an epoch timestamp:
      // a COMMIT PostgreSQL read before the stop and completed after SIGCONT is one.
      '-c',
      'log_min_duration_statement=2000',
      '-c',
      'log_line_prefix=%n [%p] ',
    ],
  });
  redis = await startPrivateRedis({ dir: join(base, 'redis'), appendOnly: false });
});

test.after.always(async () => {
  for (const pid of stopped) signal(pid, 'SIGCONT');
  await svc?.kill('SIGKILL').catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  await pg?.stop().catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
});

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** Stops the postmaster (so it forks no more) and then every process it started, until none is left running. */
function stopCluster(postmaster: number): void {
  signal(postmaster, 'SIGSTOP');
  stopped.add(postmaster);
  for (;;) {
    const fresh = childrenOf(postmaster).filter((p) => !stopped.has(p));
    if (fresh.length === 0) return;
    for (const p of fresh) {
      signal(p, 'SIGSTOP');
      stopped.add(p);
    }
  }
}

function resumeAll(): void {
  for (const pid of stopped) signal(pid, 'SIGCONT');
  stopped.clear();
}

/** One booking request: when it was sent and answered (ms since the burst began), its answer, and its attendee. */
interface Answer {
  sentAt: number;
  answeredAt: number;
  status: number;
  code?: string;
  retryAfter: string | null;
  bookingId?: string;
  slotId: string;
  email: string;
}

/** POST with a bound: a request that hangs reads as status -1, a transport failure as 0. */
async function post(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; body: any; retryAfter: string | null }> {
  try {
    const res = await fetch(`${url}/api/v1/bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      retryAfter: res.headers.get('retry-after'),
    };
  } catch (err) {
    return { status: (err as Error).name === 'TimeoutError' ? -1 : 0, body: String(err), retryAfter: null };
  }
}

type Org = Awaited<ReturnType<typeof newOrganization>>;
type Target = Awaited<ReturnType<typeof bookableProvider>>;
const DAY_MS = 86_400_000;
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );

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

let attendees = 0;

/**
 * Books v1 slots from 4 concurrent loops, every slot asked for twice (two loops race for it), each request with an
 * attendee of its own (so what it made can be found), while `during` runs and `after` ms more. Answers every response.
 */
async function burst(
  url: string,
  o: Org,
  target: Target,
  during: (t0: number, answers: Answer[]) => Promise<void>,
  after: number,
): Promise<Answer[]> {
  const queue = target.slots.flatMap((s) => [s, s]);
  const answers: Answer[] = [];
  const t0 = Date.now();
  let stopAt = Number.POSITIVE_INFINITY;
  const loop = async () => {
    while (queue.length > 0 && Date.now() < stopAt) {
      const slotId = queue.shift()!;
      const email = `attendee-${++attendees}@example.com`;
      const sentAt = Date.now() - t0;
      const r = await post(url, o.key, {
        providerId: target.provider.id,
        serviceId: target.service.id,
        slotId,
        attendee: { name: 'Pat Doe', email },
      });
      answers.push({
        sentAt,
        answeredAt: Date.now() - t0,
        status: r.status,
        code: r.body?.error?.code,
        retryAfter: r.retryAfter,
        bookingId: r.status === 200 ? r.body?.data?.id : undefined,
        slotId,
        email,
      });
      // Paced, so that the slots last through the outage.
      await new Promise((res) => setTimeout(res, r.status === 200 || r.status === 409 ? 10 : 50));
    }
  };
  const loops = Array.from({ length: 4 }, loop);
  await during(t0, answers);
  stopAt = Date.now() + after;
  await Promise.all(loops);
  if (queue.length === 0) throw new Error('the burst ran out of slots; give it more days');
  return answers;
}

/** Waits until a booking sent after `from` (ms into the burst) was answered 200, at most `ms`. */
async function untilBooked(answers: Answer[], from: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !answers.some((a) => a.status === 200 && a.sentAt >= from))
    await new Promise((r) => setTimeout(r, 50));
}

/** Only 200, 409 SLOT_UNAVAILABLE, and 503 SERVICE_UNAVAILABLE with Retry-After; nothing hung, nothing 500. */
function assertAnswers(t: ExecutionContext, answers: Answer[], boundMs: number): void {
  const unexpected = answers.filter(
    (a) =>
      ![200, 409, 503].includes(a.status) ||
      (a.status === 409 && a.code !== 'SLOT_UNAVAILABLE') ||
      (a.status === 503 && (a.code !== 'SERVICE_UNAVAILABLE' || !/^\d+$/.test(a.retryAfter ?? ''))),
  );
  t.deepEqual(
    unexpected.map((a) => `${a.status} ${a.code ?? ''} retry-after=${a.retryAfter}`),
    [],
    'only 200, 409 SLOT_UNAVAILABLE, 503 SERVICE_UNAVAILABLE with Retry-After (no 500, no hang)',
  );
  const slow = answers.filter((a) => a.answeredAt - a.sentAt > boundMs);
  t.deepEqual(
    slow.map((a) => `${a.status} in ${a.answeredAt - a.sentAt} ms`),
    [],
    `every request answered within ${boundMs} ms`,
  );
}

/** Every acknowledged booking is stored once, and no two live bookings of the provider overlap. */
async function assertLedger(t: ExecutionContext, providerId: string, answers: Answer[]) {
  const acked = answers.filter((a) => a.status === 200);
  t.true(acked.length > 0);
  t.is(new Set(acked.map((a) => a.slotId)).size, acked.length, 'no slot acknowledged twice');
  const db = createDatabase(pg!.url, { max: 1 });
  try {
    const stored = await db.query('SELECT id FROM bookings WHERE id = ANY($1)', [acked.map((a) => a.bookingId)]);
    t.is(stored.rowCount, acked.length, 'every acknowledged booking is in the ledger');
    const overlaps = await db.query(
      `SELECT x.id, y.id FROM bookings x JOIN bookings y ON x.provider_id = y.provider_id AND x.id < y.id AND tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
       WHERE x.status IN ('pending', 'confirmed') AND y.status IN ('pending', 'confirmed') AND x.provider_id = $1`,
      [providerId],
    );
    t.deepEqual(overlaps.rows, [], 'no overlapping live bookings');
  } finally {
    await db.close();
  }
}

/** The bookings made for the attendees of refused requests, with their commit time (epoch ms). */
async function madeFor(answers: Answer[]): Promise<{ id: string; email: string; committedAt: number }[]> {
  const db = createDatabase(pg!.url, { max: 1 });
  try {
    const r = await db.query(
      `SELECT id, customer->>'email' AS email, pg_xact_commit_timestamp(xmin) AS committed FROM bookings WHERE customer->>'email' = ANY($1)`,
      [answers.map((a) => a.email)],
    );
    return r.rows.map((row: { id: string; email: string; committed: Date | null }) => ({
      id: row.id,
      email: row.email,
      committedAt: row.committed?.getTime() ?? Number.NaN,
    }));
  } finally {
    await db.close();
  }
}

/**
 * The COMMITs PostgreSQL had read before `at` (epoch ms) and completed after it, from its log: when each was read (its
 * statement_timestamp, the log time less the duration) and completed (epoch ms).
 */
function commitsAcross(at: number): { readAt: number; doneAt: number }[] {
  const out: { readAt: number; doneAt: number }[] = [];
  for (const line of pgLog.split('\n')) {
    const m = /^(\d+\.\d+) \[\d+\] LOG:\s+duration: ([\d.]+) ms\s+statement: COMMIT\s*$/.exec(line.trim());
    if (!m) continue;
    const doneAt = Number(m[1]) * 1000;
    const readAt = doneAt - Number(m[2]);
    if (readAt < at && doneAt >= at) out.push({ readAt, doneAt });
  }
  return out.sort((a, b) => a.doneAt - b.doneAt);
}

async function startService(): Promise<{ url: string; o: Org }> {
  const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
  svc ??= await startServiceProcess({
    databaseUrl: pg!.url,
    redisUrl: redis!.url,
    platformKey,
    dataDir: join(base, 'service'),
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const o = await newOrganization(
    { url: svc.url, platformKey: svc.platformKey } as unknown as TestService,
    `hang-${randomBytes(3).toString('hex')}`,
  );
  return { url: svc.url, o };
}

test.serial(
  'PostgreSQL hung with SIGSTOP during v1 bookings: 503 with Retry-After within the bound, 200 again after SIGCONT, and a refused booking is not made afterwards',
  async (t) => {
    t.timeout(180_000);
    const { url, o } = await startService();
    const target = await bookableProvider(o, 'pg-hang', 40);
    let stoppedAt = 0;
    let stoppedWall = 0;
    let resumedAt = 0;
    let readyDuring: { status: number; ms: number } | undefined;
    const answers = await burst(
      url,
      o,
      target,
      async (t0, sofar) => {
        // Bookings flow first, so some are acknowledged before PostgreSQL stops.
        while (Date.now() - t0 < 1500) await new Promise((r) => setTimeout(r, 25));
        stopCluster(pg!.pid);
        stoppedWall = Date.now();
        stoppedAt = stoppedWall - t0;
        await new Promise((r) => setTimeout(r, 1500));
        const asked = Date.now();
        const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
          (r) => r.status,
          () => -1,
        );
        readyDuring = { status: ready, ms: Date.now() - asked };
        while (Date.now() - t0 < stoppedAt + HANG_MS) await new Promise((r) => setTimeout(r, 25));
        resumeAll();
        resumedAt = Date.now() - t0;
        await untilBooked(sofar, resumedAt, 20_000);
      },
      1000,
    );

    assertAnswers(t, answers, PG_BOUND_MS);
    const refused = answers.filter((a) => a.status === 503);
    const first503 = refused.find((a) => a.answeredAt >= stoppedAt);
    const inHang = answers.filter((a) => a.sentAt >= stoppedAt && a.answeredAt <= resumedAt);
    const back = answers.find((a) => a.status === 200 && a.sentAt >= resumedAt);
    t.truthy(first503, 'bookings answered 503 while PostgreSQL was stopped');
    t.true(
      inHang.length > 0 && inHang.every((a) => a.status === 503),
      'every booking sent and answered during the stop was 503',
    );
    t.truthy(back, 'bookings answered 200 again after SIGCONT, without a restart');
    t.is(readyDuring?.status, 503, '/readyz said 503 during the stop');
    t.true((readyDuring?.ms ?? Infinity) <= 2000, `/readyz answered within its bound (${readyDuring?.ms} ms)`);
    await assertLedger(t, target.provider.id, answers);

    // A refused request changed nothing: no booking was made for its attendee afterwards. The one exception PostgreSQL
    // itself cannot avoid: a COMMIT it had already read when it stopped. Stopped in the WAL flush, it has its commit
    // timestamp from before the stop; stopped earlier in the commit, it gets one after SIGCONT, when it completes
    // (transaction_timeout cannot refuse it: no interrupt is checked between reading COMMIT and writing its record).
    // So a booking committed after the stop must be one of the COMMITs PostgreSQL's log shows as read before the stop
    // and completed after it, each COMMIT for one booking, completed no earlier than that booking's commit timestamp.
    // A COMMIT read only after SIGCONT (the fence failed) or work begun after it has no such line.
    const made = await madeFor(refused);
    const afterStop = made.filter((m) => !(m.committedAt < stoppedWall)).sort((a, b) => a.committedAt - b.committedAt);
    const across = commitsAcross(stoppedWall);
    const unpaired = [...across];
    const unexplained = afterStop.filter((m) => {
      const i = unpaired.findIndex((c) => c.doneAt >= m.committedAt);
      if (i < 0) return true;
      unpaired.splice(i, 1);
      return false;
    });
    t.deepEqual(
      unexplained.map((m) => `${m.id} committed ${m.committedAt - stoppedWall} ms after the stop`),
      [],
      'no booking answered 503 was committed after PostgreSQL stopped, but by a COMMIT PostgreSQL had read before it',
    );
    const slowest = Math.max(...refused.map((a) => a.answeredAt - a.sentAt));
    t.log(
      `PostgreSQL stopped ${stoppedAt} ms into the burst for ${HANG_MS} ms: first 503 ${first503 ? first503.answeredAt - stoppedAt : '-'} ms after the stop, slowest 503 ${slowest} ms; ` +
        `/readyz 503 in ${readyDuring?.ms} ms; first 200 booking ${back ? back.answeredAt - resumedAt : '-'} ms after SIGCONT; ` +
        `${answers.filter((a) => a.status === 200).length} acknowledged, ${answers.filter((a) => a.status === 409).length} x 409, ${refused.length} x 503 ` +
        `(${made.length} of them committed, ${made.length - afterStop.length} before the stop and ${afterStop.length} after SIGCONT, ` +
        `by COMMITs in flight: ${across.length} read before the stop and completed after it)`,
    );
  },
);

test.serial(
  'Redis hung with SIGSTOP during v1 bookings: 503 with Retry-After within the bound, 200 again after SIGCONT, and a refused booking is not made',
  async (t) => {
    t.timeout(180_000);
    const { url, o } = await startService();
    const target = await bookableProvider(o, 'redis-hang', 25);
    let stoppedAt = 0;
    let resumedAt = 0;
    const answers = await burst(
      url,
      o,
      target,
      async (t0, sofar) => {
        while (Date.now() - t0 < 1500) await new Promise((r) => setTimeout(r, 25));
        redis!.child.kill('SIGSTOP');
        stopped.add(redis!.child.pid!);
        stoppedAt = Date.now() - t0;
        while (Date.now() - t0 < stoppedAt + HANG_MS / 2) await new Promise((r) => setTimeout(r, 25));
        resumeAll();
        resumedAt = Date.now() - t0;
        await untilBooked(sofar, resumedAt, 20_000);
      },
      1000,
    );

    assertAnswers(t, answers, REDIS_BOUND_MS);
    const refused = answers.filter((a) => a.status === 503);
    const first503 = refused.find((a) => a.answeredAt >= stoppedAt);
    const back = answers.find((a) => a.status === 200 && a.sentAt >= resumedAt);
    t.truthy(first503, 'bookings answered 503 while Redis was stopped');
    t.true(
      answers
        .filter((a) => a.sentAt >= stoppedAt + REDIS_BOUND_MS && a.answeredAt <= resumedAt)
        .every((a) => a.status === 503),
      'bookings sent during the stop were refused',
    );
    t.truthy(back, 'bookings answered 200 again after SIGCONT, without a restart');
    await assertLedger(t, target.provider.id, answers);
    // The rate limit (Redis) comes before any write, so a booking refused for Redis made nothing.
    t.deepEqual(
      (await madeFor(refused)).map((m) => m.id),
      [],
      'no booking answered 503 was made',
    );
    const slowest = Math.max(
      ...answers.filter((a) => a.answeredAt >= stoppedAt && a.sentAt <= resumedAt).map((a) => a.answeredAt - a.sentAt),
    );
    t.log(
      `Redis stopped ${stoppedAt} ms into the burst for ${HANG_MS / 2} ms: first 503 ${first503 ? first503.answeredAt - stoppedAt : '-'} ms after the stop, slowest answer meanwhile ${slowest} ms; ` +
        `first 200 booking ${back ? back.answeredAt - resumedAt : '-'} ms after SIGCONT; ` +
        `${answers.filter((a) => a.status === 200).length} acknowledged, ${answers.filter((a) => a.status === 409).length} x 409, ${refused.length} x 503`,
    );
    // The service's own client is shared by the bookings and workers: it is healthy again too.
    t.is((await client(url).get('/readyz')).status, 200);
  },
);
