import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// Two service processes (children, real clock) share one Redis and one PostgreSQL; both run the waitlist offer
// worker, so the offers of 50 cancellations made at once race across them.
let stores: TestStores;
let db: Database;
let a: ServiceProcess;
let b: ServiceProcess;
const started: ServiceProcess[] = [];
const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  db = createDatabase(stores.databaseUrl, { max: 4 });
  started.push(
    ...(await startServiceProcesses(2, {
      databaseUrl: stores.databaseUrl,
      redisUrl: stores.redisUrl,
      platformKey,
      name: 'wlc',
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    })),
  );
  [a, b] = started as [ServiceProcess, ServiceProcess];
});
test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  await db?.close().catch(() => undefined);
  await stores?.stop();
});

const DAY_MS = 86_400_000;
const day = new Date(Date.now() + 2 * DAY_MS).toISOString().slice(0, 10);
const lastDay = new Date(Date.now() + 8 * DAY_MS).toISOString().slice(0, 10);
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

const BOOKINGS = 50;
const ENTRIES = 30;

test('two processes, 50 cancellations at once: no slot is offered twice, no entry holds two offers', async (t) => {
  const o = await newOrganization(asSvc(a), `wlc-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(
    o,
    { externalId: 'p1' },
    { duration: 30, schedule: { timezone: 'UTC', days: everyDay('09:00', '17:00') } },
  );
  const bookings: string[] = [];
  for (let i = 0; i < BOOKINGS; i++) {
    const api = client((i % 2 ? b : a).url, o.key);
    const r = await api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: day, to: lastDay }, maxOptionsPerProvider: 1 },
      idem(),
    );
    if (r.status !== 200 || r.body.options.length === 0) throw new Error(JSON.stringify(r.body));
    const c = await api.post(
      `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
      { optionId: r.body.options[0].optionId, customer },
      idem(),
    );
    if (c.status !== 200) throw new Error(JSON.stringify(c.body));
    bookings.push(c.body.id);
  }
  for (let i = 0; i < ENTRIES; i++) {
    const e = await client(a.url, o.key).post('/api/v2/waitlist', {
      serviceId: p.service.id,
      customer: { name: `Client ${i}`, email: `c${i}@example.com` },
    });
    if (e.status !== 200) throw new Error(JSON.stringify(e.body));
  }

  // A 503 (the machine is shared, a statement may time out under this burst) is retried as the contract advises; a
  // retry that finds the booking already cancelled (its first try committed) answers 409 and counts as done.
  const cancels = await Promise.all(
    bookings.map(async (id, i) => {
      for (let attempt = 1; ; attempt++) {
        const r = await client((i % 2 ? b : a).url, o.key).post(`/api/v1/bookings/${id}/cancel`, {});
        if (r.status !== 503 || attempt === 3) return attempt > 1 && r.status === 409 ? { ...r, status: 200 } : r;
      }
    }),
  );
  t.deepEqual(
    cancels.filter((c) => c.status !== 200).map((c) => [c.status, c.body]),
    [],
  );

  // Every cancellation queued its slot; wait until both workers have offered them all.
  const until = Date.now() + 60_000;
  let offered = 0;
  for (;;) {
    const jobs = Number((await db.query('SELECT count(*) AS n FROM waitlist_offer_jobs')).rows[0].n);
    offered = Number(
      (
        await db.query(`SELECT count(*) AS n FROM waitlist_entries WHERE organization_id = $1 AND status = 'offered'`, [
          o.org.id,
        ])
      ).rows[0].n,
    );
    if (jobs === 0 && offered === ENTRIES) break;
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.is(offered, ENTRIES, 'every entry is offered one of the 50 freed slots');

  const events = (
    await db.query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'waitlist.offered'`, [o.org.id])
  ).rows.map((r) => r.data as { entryId: string; holdId: string; providerId: string; slotStart: string });
  t.is(events.length, ENTRIES, 'one waitlist.offered per offer');
  t.is(new Set(events.map((e) => e.entryId)).size, ENTRIES, 'no entry was offered twice');
  t.is(new Set(events.map((e) => `${e.providerId}|${e.slotStart}`)).size, ENTRIES, 'no slot was offered twice');
  const holds = await db.query(
    `SELECT ref_id FROM slot_claims WHERE organization_id = $1 AND kind = 'hold' AND active`,
    [o.org.id],
  );
  t.deepEqual(
    holds.rows.map((r) => r.ref_id).sort(),
    events.map((e) => e.holdId).sort(),
    'each offer is a real active hold, and only the offers hold slots',
  );
  const overlapping = await db.query(
    `SELECT 1 FROM slot_claims x JOIN slot_claims y ON x.provider_id = y.provider_id AND x.id < y.id AND x.during && y.during
     WHERE x.active AND y.active AND x.organization_id = $1`,
    [o.org.id],
  );
  t.is(overlapping.rowCount, 0);
  // Both processes took part (each offer's audit entry names the request that the offering process made).
  const offersAudited = await db.query(
    `SELECT count(*) AS n FROM audit_events WHERE organization_id = $1 AND action = 'waitlist_entry.offer'`,
    [o.org.id],
  );
  t.is(Number(offersAudited.rows[0].n), ENTRIES);
});
