import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client, type JsonResponse } from '../helpers/http.js';
import {
  privateRedisPid,
  processAlive,
  startServiceProcess,
  waitForExit,
  type ServiceProcess,
} from '../helpers/service-process.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// Service processes are children killed with SIGKILL mid-work; everything they leave behind is checked in the stores.
// Serial: each test starts several processes, and start-up on a loaded machine is the slow part.
const started: ServiceProcess[] = [];
const dataDirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  // A private redis-server outlives a service killed with SIGKILL; stop only the one our service started in our data dir.
  for (const dir of dataDirs) {
    const pid = privateRedisPid(dir);
    if (pid && processAlive(pid) && ownRedis(pid, dir)) {
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, 5000);
    }
  }
  for (const c of cleanups) await c().catch(() => undefined);
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
  const dir = join(process.env.TEST_DATA_DIR ?? '/tmp', `${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  dataDirs.push(dir);
  return dir;
}

/** Starts a service child process and remembers it for clean-up. */
async function spawnService(opts: Parameters<typeof startServiceProcess>[0]): Promise<ServiceProcess> {
  const p = await startServiceProcess({ ...opts, env: { RATE_LIMIT_PER_MINUTE: '100000', ...opts.env } });
  started.push(p);
  return p;
}

const DAY_MS = 86_400_000;
const day = new Date(Date.now() + 5 * DAY_MS).toISOString().slice(0, 10);
const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const at = (hhmm: string) => Date.parse(`${day}T${hhmm}:00Z`);
const everyDay = (start: string, end: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
      d,
      { enabled: true, slots: [{ start, end }] },
    ]),
  );
const customer = { name: 'Pat Doe', email: 'pat@example.com' };
const idem = () => ({ 'idempotency-key': randomUUID() });
const asSvc = (p: ServiceProcess) => ({ url: p.url, platformKey: p.platformKey }) as unknown as TestService;
type Org = Awaited<ReturnType<typeof newOrganization>>;
type Resolution = { resolutionId: string; options: { optionId: string; slot: { start: string; end: string } }[] };
const via = (p: ServiceProcess, o: Org) => client(p.url, o.key);

/** Creates a resolution over `day` (fails loudly otherwise). */
async function resolve(p: ServiceProcess, o: Org, serviceId: string): Promise<Resolution> {
  for (let attempt = 1; ; attempt++) {
    const r = await via(p, o).post(
      '/api/v2/resolutions',
      { serviceId, dateRange: { from: day, to: nextDay }, maxOptionsPerProvider: 10 },
      idem(),
    );
    if (r.status === 200) return r.body as Resolution;
    // A burst beyond the process's admission budget is shed with 503 and Retry-After: a client waits and tries again.
    const retryAfter = Number(r.headers.get('retry-after') ?? 0);
    if (r.status !== 503 || !retryAfter || attempt >= 20)
      throw new Error(`resolution failed: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((done) => setTimeout(done, retryAfter * 1000));
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
 * The ledger invariants of one provider after any crash: no overlapping active claims, no overlapping
 * pending/confirmed bookings, each live booking holds exactly one active claim, no active booking claim
 * without its live booking, and every booking has its audit record, its event (v2) or e-mail (v1).
 */
async function assertLedgerConsistent(t: ExecutionContext, db: Database, providerId: string) {
  const claimOverlaps = await db.query(
    `SELECT x.ref_id, y.ref_id FROM slot_claims x JOIN slot_claims y ON x.provider_id = y.provider_id AND x.id < y.id AND x.during && y.during
     WHERE x.active AND y.active AND x.provider_id = $1`,
    [providerId],
  );
  t.deepEqual(claimOverlaps.rows, [], 'no overlapping active claims');
  const bookingOverlaps = await db.query(
    `SELECT x.id, y.id FROM bookings x JOIN bookings y ON x.provider_id = y.provider_id AND x.id < y.id AND tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
     WHERE x.status IN ('pending', 'confirmed') AND y.status IN ('pending', 'confirmed') AND x.provider_id = $1`,
    [providerId],
  );
  t.deepEqual(bookingOverlaps.rows, [], 'no overlapping pending/confirmed bookings');
  const unclaimed = await db.query(
    `SELECT b.id FROM bookings b WHERE b.provider_id = $1 AND b.status IN ('pending', 'confirmed')
       AND (SELECT count(*) FROM slot_claims c WHERE c.ref_id = b.id AND c.active AND c.kind = 'booking') <> 1`,
    [providerId],
  );
  t.deepEqual(unclaimed.rows, [], 'every live booking holds exactly one active claim');
  const phantom = await db.query(
    `SELECT c.ref_id FROM slot_claims c LEFT JOIN bookings b ON b.id = c.ref_id
     WHERE c.provider_id = $1 AND c.active AND c.kind = 'booking' AND (b.id IS NULL OR b.status NOT IN ('pending', 'confirmed'))`,
    [providerId],
  );
  t.deepEqual(phantom.rows, [], 'no phantom slot claim');
  const missing = await db.query(
    `SELECT b.id, b.source,
       (SELECT count(*)::int FROM events e WHERE e.type = 'booking.confirmed' AND e.data->>'bookingId' = b.id) AS confirmed_events,
       (SELECT count(*)::int FROM audit_events a WHERE a.action = 'booking.create' AND a.resource_id = b.id) AS audits,
       (SELECT count(*)::int FROM email_outbox m WHERE m.booking_id = b.id) AS emails,
       (SELECT count(*)::int FROM resolutions r WHERE r.booking_id = b.id) AS resolutions
     FROM bookings b WHERE b.provider_id = $1`,
    [providerId],
  );
  const broken = missing.rows.filter(
    (r) => r.audits !== 1 || (r.source === 'v2' ? r.confirmed_events !== 1 || r.resolutions !== 1 : r.emails < 1),
  );
  t.deepEqual(
    broken,
    [],
    'no booking without its events (v2: booking.confirmed and the resolution link; v1: its e-mail; both: the audit record)',
  );
  return missing.rows as { id: string; source: string }[];
}

test.serial(
  'kill -9 of a process in the middle of a burst: acknowledged bookings survive, no overlap, no booking without its events',
  async (t) => {
    t.timeout(180_000);
    const stores: TestStores = await startTestStores();
    cleanups.push(() => stores.stop());
    const db = createDatabase(stores.databaseUrl, { max: 4 });
    cleanups.push(() => db.close());
    const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
    const common = {
      databaseUrl: stores.databaseUrl,
      redisUrl: stores.redisUrl,
      platformKey,
      dataDir: newDataDir('burst'),
    };
    const survivor = await spawnService(common);
    const victim = await spawnService(common);

    const o = await newOrganization(asSvc(survivor), `burst-${randomUUID().slice(0, 8)}`);
    const { provider, service } = await providerWithService(
      o,
      { externalId: 'burst' },
      { title: 'Burst Session', duration: 30, schedule: { timezone: 'UTC', days: everyDay('08:00', '18:00') } },
    );
    // 20 resolutions offer 08:00..12:30; two confirms race for each of those ten slots, two v1 creates for each of 13:00..17:30.
    const resolutions: Resolution[] = [];
    for (let i = 0; i < 20; i += 5)
      resolutions.push(...(await Promise.all(Array.from({ length: 5 }, () => resolve(survivor, o, service.id)))));
    const slots = (
      await via(survivor, o).get(`/api/v1/slots?providerId=${provider.id}&eventTypeId=${service.id}&date=${day}`)
    ).body.slots as { id: string; time: string }[];
    const afternoon = slots.filter((s) => s.time >= '13:00' && s.time < '18:00');
    t.is(afternoon.length, 10);
    const target = (i: number) => (i % 4 === 3 ? survivor : victim);
    const sends: { kind: 'v2' | 'v1'; to: ServiceProcess; send: () => Promise<JsonResponse> }[] = [
      ...resolutions.map((r, i) => {
        const option = r.options.find((x) => Date.parse(x.slot.start) === at('08:00') + (i % 10) * 30 * 60_000)!;
        return {
          kind: 'v2' as const,
          to: target(i),
          send: () =>
            via(target(i), o).post(
              `/api/v2/resolutions/${r.resolutionId}/confirm`,
              { optionId: option.optionId, customer },
              idem(),
            ),
        };
      }),
      ...Array.from({ length: 20 }, (_, i) => ({
        kind: 'v1' as const,
        to: target(i + 1),
        send: () =>
          via(target(i + 1), o).post('/api/v1/bookings', {
            providerId: provider.id,
            serviceId: service.id,
            slotId: afternoon[i % 10]!.id,
            attendee: customer,
          }),
      })),
    ];

    // Kill the victim as soon as it acknowledged its first booking (at most 20 s in), while the rest is in flight.
    let killedAt = 0;
    let firstAck: () => void = () => undefined;
    const acked = new Promise<void>((r) => {
      firstAck = r;
    });
    const t0 = Date.now();
    const inFlight = sends.map(async (s) => {
      const res = await attempt(s.send);
      if (s.to === victim && res.status === 200) firstAck();
      return { ...s, res };
    });
    await Promise.race([acked, new Promise((r) => setTimeout(r, 20_000))]);
    await new Promise((r) => setTimeout(r, 20));
    killedAt = Date.now();
    await victim.kill('SIGKILL');
    const results = await Promise.all(inFlight);
    const fromVictim = results.filter((r) => r.to === victim);
    t.log(
      `victim killed ${killedAt - t0} ms into the burst: victim answered ${fromVictim.filter((r) => r.res.status !== 0).length}/${fromVictim.length} (${fromVictim.filter((r) => r.res.status === 200).length} acknowledged), survivor ${results.filter((r) => r.to === survivor && r.res.status === 200).length} acknowledged`,
    );
    t.true(
      fromVictim.some((r) => r.res.status === 200),
      'the victim acknowledged something before it died',
    );
    t.true(
      fromVictim.some((r) => r.res.status === 0),
      'the victim died with requests in flight',
    );
    t.true(
      results.every((r) => [0, 200, 409].includes(r.res.status)),
      JSON.stringify(results.filter((r) => ![0, 200, 409].includes(r.res.status)).map((r) => r.res.body)),
    );
    t.true(results.filter((r) => r.res.status === 409).every((r) => r.res.body?.error?.code === 'SLOT_UNAVAILABLE'));

    const restart = Date.now();
    const replacement = await spawnService(common);
    t.log(`replacement ready in ${Date.now() - restart} ms`);
    const acknowledged = results
      .filter((r) => r.res.status === 200)
      .map((r) => ({ kind: r.kind, id: (r.kind === 'v2' ? r.res.body.id : r.res.body.data.id) as string }));
    for (const a of acknowledged) {
      const read = await via(replacement, o).get(`/api/v2/bookings/${a.id}`);
      t.is(read.status, 200, `acknowledged booking ${a.id} is readable after the crash`);
      t.is(read.body.status, a.kind === 'v2' ? 'confirmed' : 'pending');
    }
    const rows = await assertLedgerConsistent(t, db, provider.id);
    t.true(acknowledged.every((a) => rows.some((r) => r.id === a.id)));

    // Redis agrees with the ledger: a resolution whose booking committed (acknowledged or not) cannot book again.
    const booked = await db.query(
      'SELECT id, booking_id FROM resolutions WHERE booking_id IS NOT NULL AND id = ANY($1)',
      [resolutions.map((r) => r.resolutionId)],
    );
    for (const row of booked.rows) {
      const r = resolutions.find((x) => x.resolutionId === row.id)!;
      const again = await via(replacement, o).post(
        `/api/v2/resolutions/${r.resolutionId}/confirm`,
        { optionId: r.options[9]!.optionId, customer },
        idem(),
      );
      t.is(again.status, 409, `resolution ${row.id}: ${JSON.stringify(again.body)}`);
      t.is(again.body?.error?.code, 'RESOLUTION_ALREADY_CONFIRMED');
    }
    // The stores serve new work through the replacement: a fresh resolution offers only free time and books it.
    const fresh = await resolve(replacement, o, service.id);
    const taken = new Set(
      (
        await db.query(`SELECT start_at FROM bookings WHERE provider_id = $1 AND status IN ('pending', 'confirmed')`, [
          provider.id,
        ])
      ).rows.map((r) => (r.start_at as Date).getTime()),
    );
    t.false(fresh.options.some((x) => taken.has(Date.parse(x.slot.start))));
    const ok = await via(replacement, o).post(
      `/api/v2/resolutions/${fresh.resolutionId}/confirm`,
      { optionId: fresh.options[0]!.optionId, customer },
      idem(),
    );
    t.is(ok.status, 200, JSON.stringify(ok.body));
    await assertLedgerConsistent(t, db, provider.id);
  },
);

for (const stopWith of ['SIGTERM', 'SIGKILL'] as const) {
  test.serial(
    `kill -9 of the private redis-server, then the service stopped with ${stopWith} and restarted: bookings survive and booking works`,
    async (t) => {
      t.timeout(180_000);
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const db = createDatabase(database.url, { max: 2 });
      cleanups.push(() => db.close());
      const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
      // No REDIS_URL: the service starts its own redis-server (AOF on) under DATA_DIR/redis.
      const common = {
        databaseUrl: database.url,
        platformKey,
        dataDir: newDataDir(`redis-crash-${stopWith.toLowerCase()}`),
      };
      const first = await spawnService(common);
      const o = await newOrganization(asSvc(first), `redis-crash-${randomUUID().slice(0, 8)}`);
      const { provider, service } = await providerWithService(
        o,
        { externalId: 'redis-crash' },
        { duration: 60, schedule: { timezone: 'UTC', days: everyDay('09:00', '17:00') } },
      );
      const r = await resolve(first, o, service.id);
      const v2 = await via(first, o).post(
        `/api/v2/resolutions/${r.resolutionId}/confirm`,
        { optionId: r.options.find((x) => Date.parse(x.slot.start) === at('09:00'))!.optionId, customer },
        idem(),
      );
      t.is(v2.status, 200, JSON.stringify(v2.body));
      const slot = (
        (await via(first, o).get(`/api/v1/slots?providerId=${provider.id}&eventTypeId=${service.id}&date=${day}`)).body
          .slots as { id: string; time: string }[]
      ).find((s) => s.time === '10:00')!;
      const v1 = await via(first, o).post('/api/v1/bookings', {
        providerId: provider.id,
        serviceId: service.id,
        slotId: slot.id,
        attendee: customer,
      });
      t.is(v1.status, 200, JSON.stringify(v1.body));

      const redisPid = privateRedisPid(common.dataDir);
      t.truthy(redisPid, 'the pid file of the private redis-server exists');
      t.true(
        processAlive(redisPid!) && ownRedis(redisPid!, common.dataDir),
        'it names the running redis-server of this data dir',
      );
      process.kill(redisPid!, 'SIGKILL');
      t.true(await waitForExit(redisPid!, 5000));
      const during = await attempt(() => via(first, o).get(`/api/v2/resolutions/${r.resolutionId}`));
      t.not(during.status, 200, 'without its Redis the service does not answer from nowhere');
      const stopping = Date.now();
      await first.kill(stopWith);
      t.true(first.exited());
      const starting = Date.now();
      const second = await spawnService(common);
      t.log(
        `${stopWith} stop took ${starting - stopping} ms, the restart (redis-server replaying its AOF) ${Date.now() - starting} ms`,
      );
      for (const [id, status] of [
        [v2.body.id, 'confirmed'],
        [v1.body.data.id, 'pending'],
      ] as const) {
        const read = await via(second, o).get(`/api/v2/bookings/${id}`);
        t.is(read.status, 200, JSON.stringify(read.body));
        t.is(read.body.status, status);
      }
      t.is((await via(second, o).get(`/api/v1/bookings/${v1.body.data.id}`)).status, 200);
      // The resolution actor came back from the AOF and still knows its booking.
      const again = await via(second, o).post(
        `/api/v2/resolutions/${r.resolutionId}/confirm`,
        { optionId: r.options[5]!.optionId, customer },
        idem(),
      );
      t.is(again.status, 409, JSON.stringify(again.body));
      t.is(again.body?.error?.code, 'RESOLUTION_ALREADY_CONFIRMED');
      const fresh = await resolve(second, o, service.id);
      const starts = fresh.options.map((x) => Date.parse(x.slot.start));
      t.false(starts.includes(at('09:00')));
      t.false(starts.includes(at('10:00')));
      const ok = await via(second, o).post(
        `/api/v2/resolutions/${fresh.resolutionId}/confirm`,
        { optionId: fresh.options[0]!.optionId, customer },
        idem(),
      );
      t.is(ok.status, 200, JSON.stringify(ok.body));
      t.is((await via(second, o).get(`/api/v2/bookings/${ok.body.id}`)).body.status, 'confirmed');
      await assertLedgerConsistent(t, db, provider.id);
      await second.stop();
      t.true(second.exited());
      const after = privateRedisPid(common.dataDir);
      t.true(
        after === undefined || !processAlive(after) || !ownRedis(after, common.dataDir),
        'a graceful stop takes its redis-server along',
      );
    },
  );
}
