import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import type { JsonResponse } from '../helpers/http.js';

// Redis acknowledges a write before its AOF is fsynced (appendfsync everysec): a crash of redis-server can lose the
// last second, the stored answer of an idempotent write included. The test deletes exactly those keys on its private
// Redis; a retry with the same key must still get the first answer (from PostgreSQL, where it was committed with
// the write), and another payload with that key must still be refused.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const idem = () => ({ 'idempotency-key': randomUUID() });

/** Drops every idempotency key of the organization from Redis (a loss inside the fsync window). */
async function loseIdempotencyKeys(o: Org): Promise<number> {
  const redis = svc.service.deps.redis;
  const keys = await redis.keys(`idem:{${o.org.id}}:*`);
  if (keys.length) await redis.del(keys);
  return keys.length;
}

/** An organization with one provider (weekdays 09:00-17:00 New York) and a resolution over 3 March. */
async function resolved(name: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { o, p, r: r.body };
}

const replayed = (res: JsonResponse) => res.headers.get('idempotent-replayed');

test('a confirm whose stored answer Redis lost replays the first answer from PostgreSQL; another payload is IDEMPOTENCY_KEY_REUSED', async (t) => {
  const { o, r } = await resolved('confirm-loss');
  const headers = idem();
  const body = { optionId: r.options[0].optionId, customer, metadata: { zeta: 1, alpha: { b: 2, a: 1 } } };
  const first = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/confirm`, body, headers);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(replayed(first), null);
  t.true((await loseIdempotencyKeys(o)) > 0);
  const again = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/confirm`, body, headers);
  t.is(again.status, 200, JSON.stringify(again.body));
  t.is(replayed(again), 'true');
  t.deepEqual(again.body, first.body);
  t.is(JSON.stringify(again.body), JSON.stringify(first.body), 'the same body, key order included');
  t.deepEqual((await o.api.get(`/api/v2/bookings/${first.body.id}`)).body, first.body);
  await loseIdempotencyKeys(o);
  const other = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { ...body, optionId: r.options[1].optionId },
    headers,
  );
  t.is(other.status, 409, JSON.stringify(other.body));
  t.is(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // The replay from PostgreSQL was put back in Redis: the next replay is answered from there.
  t.is(replayed(await o.api.post(`/api/v2/resolutions/${r.resolutionId}/confirm`, body, headers)), 'true');
  const rows = await svc.service.deps.db.query('SELECT count(*)::int AS n FROM bookings WHERE resolution_id = $1', [
    r.resolutionId,
  ]);
  t.is(rows.rows[0].n, 1);
});

/** The v1 slot id of `time` on 3 March. */
async function slotAt(o: Org, p: Awaited<ReturnType<typeof providerWithService>>, time: string): Promise<string> {
  const res = await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`);
  const slot = res.body.slots?.find((s: { time: string }) => s.time === time);
  if (!slot) throw new Error(`no slot ${time}: ${JSON.stringify(res.body)}`);
  return slot.id;
}

test('a v1 create or reschedule sent with an Idempotency-Key replays its first answer after Redis lost it; another payload is IDEMPOTENCY_KEY_REUSED', async (t) => {
  const o = await newOrganization(svc, `v1-loss-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const headers = idem();
  const body = {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: await slotAt(o, p, '09:00'),
    attendee: customer,
  };
  const first = await o.api.post('/api/v1/bookings', body, headers);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.truthy(first.body.data.tokenToConfirm);
  await loseIdempotencyKeys(o);
  const again = await o.api.post('/api/v1/bookings', body, headers);
  t.is(again.status, 200, JSON.stringify(again.body));
  t.is(replayed(again), 'true');
  t.is(JSON.stringify(again.body), JSON.stringify(first.body));
  await loseIdempotencyKeys(o);
  const other = await o.api.post('/api/v1/bookings', { ...body, slotId: await slotAt(o, p, '11:00') }, headers);
  t.is(other.status, 409, JSON.stringify(other.body));
  t.is(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const db = svc.service.deps.db;
  const counts = await db.query(
    `SELECT (SELECT count(*)::int FROM bookings WHERE organization_id = $1) AS bookings,
            (SELECT count(*)::int FROM email_outbox WHERE organization_id = $1) AS emails`,
    [o.org.id],
  );
  t.deepEqual(counts.rows[0], { bookings: 1, emails: 1 }, 'one booking, one e-mail');
  // Without a key a v1 create behaves as before: the slot is taken.
  const unkeyed = await o.api.post('/api/v1/bookings', body);
  t.is(unkeyed.status, 409);
  t.is(unkeyed.body.error.code, 'SLOT_UNAVAILABLE');

  const moveKey = idem();
  const move = { date: '2026-03-03', time: '13:00' };
  const moved = await o.api.post(`/api/v1/bookings/${first.body.data.id}/reschedule`, move, moveKey);
  t.is(moved.status, 200, JSON.stringify(moved.body));
  await loseIdempotencyKeys(o);
  const movedAgain = await o.api.post(`/api/v1/bookings/${first.body.data.id}/reschedule`, move, moveKey);
  t.is(movedAgain.status, 200, JSON.stringify(movedAgain.body));
  t.is(replayed(movedAgain), 'true');
  t.is(JSON.stringify(movedAgain.body), JSON.stringify(moved.body));
  await loseIdempotencyKeys(o);
  const movedElsewhere = await o.api.post(
    `/api/v1/bookings/${first.body.data.id}/reschedule`,
    { date: '2026-03-03', time: '15:00' },
    moveKey,
  );
  t.is(movedElsewhere.status, 409);
  t.is(movedElsewhere.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // The reschedule freed 09:00: the create's key still answers its first booking and books nothing new.
  await loseIdempotencyKeys(o);
  const afterMove = await o.api.post('/api/v1/bookings', body, headers);
  t.is(afterMove.status, 200, JSON.stringify(afterMove.body));
  t.is(replayed(afterMove), 'true');
  t.is(JSON.stringify(afterMove.body), JSON.stringify(first.body));
  const total = await db.query('SELECT count(*)::int AS n FROM bookings WHERE organization_id = $1', [o.org.id]);
  t.is(total.rows[0].n, 2, 'the first booking and its rescheduled successor');
});

test('a hold retried with its Idempotency-Key answers its own hold (also after Redis lost it), not HOLD_CONFLICT', async (t) => {
  const { o, r } = await resolved('hold-retry');
  const [a, b] = r.options;
  const base = `/api/v2/resolutions/${r.resolutionId}/options`;
  const headers = idem();
  const held = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 90 }, headers);
  t.is(held.status, 200, JSON.stringify(held.body));
  const again = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 90 }, headers);
  t.is(again.status, 200, JSON.stringify(again.body));
  t.is(replayed(again), 'true');
  t.deepEqual(again.body, held.body);
  await loseIdempotencyKeys(o);
  const afterLoss = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 90 }, headers);
  t.is(afterLoss.status, 200, JSON.stringify(afterLoss.body));
  t.is(replayed(afterLoss), 'true');
  t.is(JSON.stringify(afterLoss.body), JSON.stringify(held.body));
  await loseIdempotencyKeys(o);
  const otherTtl = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 60 }, headers);
  t.is(otherTtl.status, 409);
  t.is(otherTtl.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // Without a key (or with a new one) a second hold is still HOLD_CONFLICT; one hold exists.
  for (const h of [{}, idem()]) {
    const second = await o.api.post(`${base}/${b.optionId}/hold`, { ttlSeconds: 90 }, h);
    t.is(second.status, 409);
    t.is(second.body.error.code, 'HOLD_CONFLICT');
  }
  // Released, the option could be held again: the retry still answers its first hold and holds nothing new.
  t.is((await o.api.delete(`${base}/${a.optionId}/hold`)).status, 200);
  await loseIdempotencyKeys(o);
  const afterRelease = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 90 }, headers);
  t.is(afterRelease.status, 200, JSON.stringify(afterRelease.body));
  t.is(replayed(afterRelease), 'true');
  t.deepEqual(afterRelease.body, held.body);
  const holds = await svc.service.deps.db.query(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE active)::int AS active FROM slot_claims WHERE kind = 'hold' AND resolution_id = $1`,
    [r.resolutionId],
  );
  t.deepEqual(holds.rows[0], { n: 1, active: 0 });
  const confirmed = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: a.optionId, customer },
    idem(),
  );
  t.is(confirmed.status, 200, JSON.stringify(confirmed.body));
});
