import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { client } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// A service process is killed with SIGKILL in the middle of a waitlist offer: it has leased the offer job, stored the
// entry's resolution and waits in the offer's transaction (the test holds the entry's row lock, so the kill lands
// there for certain). Another process then completes the offer exactly once: one hold, one `waitlist.offered`.
let stores: TestStores;
let victim: ServiceProcess | undefined;
let survivor: TestService | undefined;
let lock: pg.Client | undefined;

test.after.always(async () => {
  await lock?.end().catch(() => undefined);
  await victim?.kill('SIGKILL').catch(() => undefined);
  await survivor?.stop().catch(() => undefined);
  await stores?.stop();
});

test('kill -9 of a process mid-offer (job leased): another process offers the slot once', async (t) => {
  t.timeout(120_000);
  stores = await startTestStores();
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  [victim] = await startServiceProcesses(1, {
    databaseUrl: stores.databaseUrl,
    redisUrl: stores.redisUrl,
    platformKey,
    name: 'waitlist-kill',
  });
  const p = client(victim!.url, platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId: 'wl-kill', name: 'wl-kill' })).body;
  const api = client(victim!.url, platformKey, { 'service-organization-id': org.id });
  const provider = (await api.post('/api/v2/providers', { externalId: 'p1', displayName: 'Dr. Kill' })).body;
  const service = (await api.post('/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 30 })).body;
  const day = { enabled: true, slots: [{ start: '08:00', end: '20:00' }] };
  const days = Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
  );
  t.is(
    (await api.post('/api/v2/calendar-connections', { providerId: provider.id, timezone: 'UTC', days })).status,
    200,
  );
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const after = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const r = (
    await api.post(
      '/api/v2/resolutions',
      { serviceId: service.id, dateRange: { from: tomorrow, to: after }, maxOptionsPerProvider: 1 },
      { 'idempotency-key': randomUUID() },
    )
  ).body;
  t.truthy(r.options?.[0], JSON.stringify({ r, service, provider }));
  const booking = await api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: r.options[0].optionId, customer: { name: 'Pat', email: 'pat@example.com' } },
    { 'idempotency-key': randomUUID() },
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  const entries: string[] = [];
  for (const name of ['First', 'Second']) {
    const e = await api.post('/api/v2/waitlist', { serviceId: service.id, customer: { name, email: 'w@example.com' } });
    t.is(e.status, 200, JSON.stringify(e.body));
    entries.push(e.body.id);
  }

  // Hold the first entry's row: the victim's offer will wait for it inside its transaction.
  lock = new pg.Client({ connectionString: stores.databaseUrl });
  await lock.connect();
  await lock.query('BEGIN');
  await lock.query('SELECT id FROM waitlist_entries WHERE id = $1 FOR UPDATE', [entries[0]]);
  t.is((await api.post(`/api/v1/bookings/${booking.body.id}/cancel`, {})).status, 200);

  const db = new pg.Client({ connectionString: stores.databaseUrl });
  await db.connect();
  try {
    // Mid-offer: the job leased, a connection blocked on the entry's row lock.
    const until = Date.now() + 15_000;
    let waiting = 0;
    while (Date.now() < until) {
      waiting = Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%FROM waitlist_entries WHERE id = $1 FOR UPDATE%'`,
          )
        ).rows[0].n,
      );
      if (waiting > 0) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    t.is(waiting, 1, 'the victim waits inside its offer transaction');
    const leased = await db.query('SELECT leased_until, attempts FROM waitlist_offer_jobs WHERE organization_id = $1', [
      org.id,
    ]);
    t.is(leased.rowCount, 1);
    t.truthy(leased.rows[0].leased_until, 'the job is leased');
    const leasedUntil = new Date(leased.rows[0].leased_until as Date);

    await victim!.kill('SIGKILL');
    await lock.query('ROLLBACK');
    await lock.end();
    lock = undefined;
    // PostgreSQL rolls the killed process's transaction back once it sees the connection gone.
    const gone = Date.now() + 10_000;
    while (
      Date.now() < gone &&
      Number((await db.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).rows[0].n) >
        0
    )
      await new Promise((res) => setTimeout(res, 20));
    const offeredEvents = async () =>
      (
        await db.query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'waitlist.offered'`, [org.id])
      ).rows.map((x) => x.data);
    t.deepEqual(await offeredEvents(), [], 'nothing of the offer was committed by the victim');
    t.is((await db.query('SELECT status FROM waitlist_entries WHERE id = $1', [entries[0]])).rows[0].status, 'waiting');

    // Another process (workers only), its clock past the dead worker's lease.
    const clock = createTestClock(new Date(leasedUntil.getTime() + 1000));
    survivor = await startTestService({ stores, clock, env: { SERVICE_ROLES: 'workers' } });
    const offered = Date.now() + 20_000;
    while (Date.now() < offered && (await offeredEvents()).length === 0)
      await new Promise((res) => setTimeout(res, 50));
    // Let the survivor finish the job (and any retry of it) before counting.
    const finished = Date.now() + 10_000;
    while (
      Date.now() < finished &&
      (await db.query('SELECT 1 FROM waitlist_offer_jobs WHERE organization_id = $1', [org.id])).rowCount! > 0
    )
      await new Promise((res) => setTimeout(res, 50));
    t.is((await db.query('SELECT 1 FROM waitlist_offer_jobs WHERE organization_id = $1', [org.id])).rowCount, 0);

    const events = await offeredEvents();
    t.is(events.length, 1, 'one waitlist.offered');
    t.is(events[0].entryId, entries[0], 'to the oldest entry');
    const statuses = (
      await db.query('SELECT id, status, doc FROM waitlist_entries WHERE organization_id = $1 ORDER BY created_at', [
        org.id,
      ])
    ).rows;
    t.deepEqual(
      statuses.map((s) => s.status),
      ['offered', 'waiting'],
    );
    t.is(statuses[0].doc.offersMade, 1);
    const holds = (
      await db.query(
        `SELECT ref_id, lower(during) AS start FROM slot_claims WHERE organization_id = $1 AND kind = 'hold' AND active`,
        [org.id],
      )
    ).rows;
    t.is(holds.length, 1, 'one hold');
    t.is(holds[0].ref_id, events[0].holdId);
    t.is(new Date(holds[0].start).toISOString(), r.options[0].slot.start, 'on the freed slot');
  } finally {
    await db.end();
  }
});
