import test from 'ava';
import { randomUUID } from 'node:crypto';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// The freeing transaction queues its offer job; no process with workers runs while it waits, and the first worker to
// lease it "dies" (its lease is left behind): the job is not lost, the next worker offers it once the lease ends.
let stores: TestStores;
const clock = createTestClock('2026-03-02T12:00:00Z');
const started: TestService[] = [];

test.before(async () => {
  stores = await startTestStores();
});
test.after.always(async () => {
  for (const s of started) await s.stop().catch(() => undefined);
  await stores?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com' };

test('an offer job waits for a worker, outlives a dead worker’s lease, and is offered once', async (t) => {
  const api = await startTestService({ stores, clock, env: { SERVICE_ROLES: 'gateway,grpc' } });
  started.push(api);
  const o = await newOrganization(api, `survive-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const r = (
    await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
      idem(),
    )
  ).body;
  const booking = (
    await o.api.post(
      `/api/v2/resolutions/${r.resolutionId}/confirm`,
      { optionId: r.options[0].optionId, customer },
      idem(),
    )
  ).body;
  const waiting = (
    await o.api.post('/api/v2/waitlist', { serviceId: p.service.id, customer: { name: 'W', email: 'w@example.com' } })
  ).body;
  t.is((await o.api.post(`/api/v1/bookings/${booking.id}/cancel`, {})).status, 200);

  const db = api.service.deps.db;
  const jobs = await db.query('SELECT id, freed_from, freed_to FROM waitlist_offer_jobs WHERE organization_id = $1', [
    o.org.id,
  ]);
  t.is(jobs.rowCount, 1, 'the cancellation queued its slot with the cancel');
  t.is(new Date(jobs.rows[0].freed_from).toISOString(), r.options[0].slot.start);
  // A worker leased it and was killed before finishing.
  await db.query(`UPDATE waitlist_offer_jobs SET leased_until = $1, attempts = 1 WHERE id = $2`, [
    new Date(clock().getTime() + 30_000),
    jobs.rows[0].id,
  ]);

  const workers = await startTestService({ stores, clock, env: { SERVICE_ROLES: 'workers' } });
  started.push(workers);
  const status = async () =>
    (await db.query('SELECT status FROM waitlist_entries WHERE id = $1', [waiting.id])).rows[0].status as string;
  t.is(await status(), 'waiting', 'the leased job is not taken while its lease lasts');
  clock.advance(31_000);
  const until = Date.now() + 15_000;
  while ((await status()) !== 'offered' && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
  t.is(await status(), 'offered');
  const until2 = Date.now() + 5_000;
  let left = 1;
  while (left > 0 && Date.now() < until2) {
    left = Number((await db.query('SELECT count(*) AS n FROM waitlist_offer_jobs')).rows[0].n);
    await new Promise((res) => setTimeout(res, 50));
  }
  t.is(left, 0, 'the job is gone once offered');
  const offers = await db.query(
    `SELECT count(*) AS n FROM events WHERE organization_id = $1 AND type = 'waitlist.offered'`,
    [o.org.id],
  );
  t.is(Number(offers.rows[0].n), 1);
});
