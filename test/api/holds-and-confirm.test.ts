import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** An organization with one provider and a fresh resolution over one day. */
async function resolved(name: string, opts: { maxOptionsPerProvider?: number } = {}) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: p.service.id,
      dateRange: { from: '2026-03-03', to: '2026-03-04' },
      maxOptionsPerProvider: opts.maxOptionsPerProvider ?? 3,
    },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { o, p, r: r.body };
}

const events = async (orgId: string, type: string) =>
  (
    await svc.service.deps.db.query('SELECT data FROM events WHERE organization_id = $1 AND type = $2 ORDER BY id', [
      orgId,
      type,
    ])
  ).rows.map((r) => r.data);

test('hold, conflict, read, release (twice the same), and the events', async (t) => {
  const { o, r } = await resolved('hold-basic');
  const [a, b] = r.options;
  const base = `/api/v2/resolutions/${r.resolutionId}/options`;
  const held = await o.api.post(`${base}/${a.optionId}/hold`, { ttlSeconds: 60 });
  t.is(held.status, 200, JSON.stringify(held.body));
  t.is(held.body.status, 'active');
  t.is(held.body.expiresAt, new Date(clock().getTime() + 60_000).toISOString());
  for (const opt of [a, b]) {
    const again = await o.api.post(`${base}/${opt.optionId}/hold`);
    t.is(again.status, 409);
    t.is(again.body.error.code, 'HOLD_CONFLICT');
  }
  t.like((await o.api.get(`${base}/${a.optionId}/hold`)).body, { holdId: held.body.holdId, status: 'active' });
  const rel = await o.api.delete(`${base}/${a.optionId}/hold`);
  t.is(rel.status, 200);
  t.like(rel.body, { holdId: held.body.holdId, status: 'released', releasedAt: clock().toISOString() });
  t.deepEqual((await o.api.delete(`${base}/${a.optionId}/hold`)).body, rel.body);
  const second = await o.api.post(`${base}/${b.optionId}/hold`);
  t.is(second.status, 200);
  t.deepEqual(
    (await events(o.org.id, 'option.held')).map((e) => e.holdId),
    [held.body.holdId, second.body.holdId],
  );
  t.like((await events(o.org.id, 'option.released'))[0], {
    holdId: held.body.holdId,
    reason: 'released',
    optionId: a.optionId,
  });
  t.is((await o.api.get(`${base}/nope/hold`)).body.error.code, 'OPTION_NOT_FOUND');
});

test('confirm with the hold makes one confirmed booking; replay, second key, released and mismatched holds', async (t) => {
  const { o, p, r } = await resolved('confirm');
  const [a, b] = r.options;
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const hold = (await o.api.post(`${base}/options/${a.optionId}/hold`)).body;
  const mismatch = await o.api.post(`${base}/confirm`, { optionId: b.optionId, holdId: hold.holdId, customer }, idem());
  t.is(mismatch.status, 409);
  t.is(mismatch.body.error.code, 'HOLD_MISMATCH');
  const key = idem();
  const booking = await o.api.post(
    `${base}/confirm`,
    { optionId: a.optionId, holdId: hold.holdId, customer, metadata: { intake: 'web' } },
    key,
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  t.like(booking.body, {
    status: 'confirmed',
    resolutionId: r.resolutionId,
    optionId: a.optionId,
    provider: { id: p.provider.id, displayName: 'Dr. p1' },
    service: { id: p.service.id, displayName: 'Intake Session', durationMinutes: 60 },
    customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
    slot: a.slot,
    metadata: { intake: 'web' },
  });
  const replay = await o.api.post(
    `${base}/confirm`,
    { optionId: a.optionId, holdId: hold.holdId, customer, metadata: { intake: 'web' } },
    key,
  );
  t.is(replay.body.id, booking.body.id);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  const other = await o.api.post(`${base}/confirm`, { optionId: b.optionId, customer }, idem());
  t.is(other.status, 409);
  t.is(other.body.error.code, 'RESOLUTION_ALREADY_CONFIRMED');
  t.like((await o.api.get(`${base}/options/${a.optionId}/hold`)).body, {
    status: 'released',
    bookingId: booking.body.id,
  });
  const confirmed = await events(o.org.id, 'booking.confirmed');
  t.deepEqual(confirmed, [
    {
      bookingId: booking.body.id,
      resolutionId: r.resolutionId,
      providerId: p.provider.id,
      slot: a.slot,
      status: 'confirmed',
    },
  ]);
  const ledger = await svc.service.deps.db.query(`SELECT count(*)::int AS n FROM bookings WHERE resolution_id = $1`, [
    r.resolutionId,
  ]);
  t.is(ledger.rows[0].n, 1);

  const { o: o2, r: r2 } = await resolved('confirm-released');
  const b2 = `/api/v2/resolutions/${r2.resolutionId}`;
  const h2 = (await o2.api.post(`${b2}/options/${r2.options[0].optionId}/hold`)).body;
  await o2.api.delete(`${b2}/options/${r2.options[0].optionId}/hold`);
  const withReleased = await o2.api.post(
    `${b2}/confirm`,
    { optionId: r2.options[0].optionId, holdId: h2.holdId, customer },
    idem(),
  );
  t.is(withReleased.status, 409);
  t.is(withReleased.body.error.code, 'HOLD_RELEASED');
});

test('a held slot is unavailable to every other resolution and booking', async (t) => {
  const o = await newOrganization(svc, `held-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'solo' });
  const body = { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } };
  const r1 = (await o.api.post('/api/v2/resolutions', body, idem())).body;
  const r2 = (await o.api.post('/api/v2/resolutions', body, idem())).body;
  t.is(r1.options[0].slot.start, r2.options[0].slot.start);
  t.is((await o.api.post(`/api/v2/resolutions/${r1.resolutionId}/options/${r1.options[0].optionId}/hold`)).status, 200);
  const taken = await o.api.post(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[0].optionId}/hold`);
  t.is(taken.status, 409);
  t.is(taken.body.error.code, 'SLOT_UNAVAILABLE');
  const confirm = await o.api.post(
    `/api/v2/resolutions/${r2.resolutionId}/confirm`,
    { optionId: r2.options[0].optionId, customer },
    idem(),
  );
  t.is(confirm.status, 409);
  t.is(confirm.body.error.code, 'SLOT_UNAVAILABLE');
  const r3 = (await o.api.post('/api/v2/resolutions', body, idem())).body;
  t.false(
    r3.options.some((x: any) => x.slot.start === r1.options[0].slot.start),
    'a new resolution does not offer the held slot',
  );
});

test('a provider renamed after the resolution: the confirmed booking, its event and its audit entry carry the current names', async (t) => {
  const { o, p, r } = await resolved('renamed');
  const [a] = r.options;
  t.is(a.provider.displayName, 'Dr. p1');
  const renamed = await o.platform.patch(`/api/v2/providers/${p.provider.id}`, { displayName: 'Dr. Renamed' });
  t.is(renamed.status, 200, JSON.stringify(renamed.body));
  const booking = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: a.optionId, customer },
    idem(),
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  t.like(booking.body, { provider: { id: p.provider.id, displayName: 'Dr. Renamed' }, status: 'confirmed' });
  const audit = await svc.service.deps.db.query(
    `SELECT after FROM audit_events WHERE organization_id = $1 AND action = 'booking.create' AND resource_id = $2`,
    [o.org.id, booking.body.id],
  );
  t.is(audit.rows.length, 1);
  t.deepEqual(audit.rows[0].after, booking.body, 'the audit entry records the booking as answered');
  t.is((await events(o.org.id, 'booking.confirmed')).length, 1);
});

test("confirm without a holdId consumes the resolution's own hold on that option", async (t) => {
  const { o, r } = await resolved('implicit-hold');
  const [a] = r.options;
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const hold = (await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 120 })).body;
  const booking = await o.api.post(`${base}/confirm`, { optionId: a.optionId, customer }, idem());
  t.is(booking.status, 200, JSON.stringify(booking.body));
  t.like((await o.api.get(`${base}/options/${a.optionId}/hold`)).body, {
    holdId: hold.holdId,
    status: 'released',
    bookingId: booking.body.id,
  });
  const claims = await svc.service.deps.db.query(
    `SELECT kind, active, end_reason FROM slot_claims WHERE resolution_id = $1 ORDER BY kind`,
    [r.resolutionId],
  );
  t.deepEqual(
    claims.rows.map((c) => [c.kind, c.active, c.end_reason]),
    [
      ['booking', true, null],
      ['hold', false, 'consumed'],
    ],
  );
});

test.serial(
  'hold expiry: reads expired, confirm is 410, the timer stores option.released; an active hold keeps the resolution alive',
  async (t) => {
    const { o, r } = await resolved('expiry');
    const base = `/api/v2/resolutions/${r.resolutionId}`;
    const [a] = r.options;
    const hold = (await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 600 })).body;
    clock.advance(400_000);
    try {
      const alive = await o.api.get(base);
      t.is(alive.status, 200, 'the resolution outlives its 300 s TTL while the hold is active');
      clock.advance(201_000);
      t.is((await o.api.get(`${base}/options/${a.optionId}/hold`)).body.status, 'expired');
      const late = await o.api.post(`${base}/confirm`, { optionId: a.optionId, holdId: hold.holdId, customer }, idem());
      t.is(late.status, 410);
      t.is(late.body.error.code, 'HOLD_EXPIRED');
      const rel = await o.api.delete(`${base}/options/${a.optionId}/hold`);
      t.is(rel.status, 410);
      t.is(rel.body.error.code, 'HOLD_EXPIRED');
      let released: any[] = [];
      for (let i = 0; i < 40 && released.length === 0; i++) {
        released = (await events(o.org.id, 'option.released')).filter((e) => e.holdId === hold.holdId);
        if (released.length === 0) await new Promise((res) => setTimeout(res, 100));
      }
      t.is(released.length, 1);
      t.is(released[0].reason, 'expired');
      for (let i = 0; i < 40; i++) {
        if ((await o.api.get(base)).status === 410) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      t.is((await o.api.get(base)).status, 410, 'once the hold ended the resolution expires');
    } finally {
      clock.set('2026-03-02T12:00:00Z');
    }
  },
);

test.serial(
  'confirm with a hold that ended after its resolution expired too is still 410 HOLD_EXPIRED (CONTRACT part 5)',
  async (t) => {
    const { o, r } = await resolved('expiry-late');
    const base = `/api/v2/resolutions/${r.resolutionId}`;
    const [a] = r.options;
    const hold = (await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 600 })).body;
    clock.advance(601_000);
    try {
      // The hold's timer ends the hold and with it the resolution (its own 300 s passed long ago).
      for (let i = 0; i < 40; i++) {
        if ((await o.api.get(base)).status === 410) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      t.is((await o.api.get(base)).body.error.code, 'RESOLUTION_EXPIRED');
      const late = await o.api.post(`${base}/confirm`, { optionId: a.optionId, holdId: hold.holdId, customer }, idem());
      t.is(late.status, 410);
      t.is(late.body.error.code, 'HOLD_EXPIRED');
      t.is(late.body.error.field, 'holdId');
      // Without a hold, the expired resolution is what the client is told.
      const bare = await o.api.post(`${base}/confirm`, { optionId: a.optionId, customer }, idem());
      t.is(bare.body.error.code, 'RESOLUTION_EXPIRED');
    } finally {
      clock.set('2026-03-02T12:00:00Z');
    }
  },
);

test('bad input for holds and confirm changes nothing', async (t) => {
  const { o, r } = await resolved('bad-hold');
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const [a] = r.options;
  for (const body of [{ ttlSeconds: 0 }, { ttlSeconds: 601 }, { ttlSeconds: 1.5 }, { ttlSeconds: '10' }]) {
    const res = await o.api.post(`${base}/options/${a.optionId}/hold`, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.error.field, 'ttlSeconds');
  }
  t.is((await o.api.get(`${base}/options/${a.optionId}/hold`)).body.error.code, 'HOLD_NOT_FOUND');
  const cases: [unknown, number, string, string?][] = [
    [{ optionId: a.optionId }, 400, 'VALIDATION_ERROR', 'customer'],
    [{ optionId: a.optionId, customer: { email: 'x@example.com' } }, 400, 'VALIDATION_ERROR', 'customer.name'],
    [{ optionId: a.optionId, customer: { name: 'X' } }, 400, 'VALIDATION_ERROR', 'customer.email'],
    [{ optionId: a.optionId, customer: { name: 'X', email: 'not-mail' } }, 400, 'VALIDATION_ERROR', 'customer.email'],
    [
      { optionId: a.optionId, customer: { name: 'n'.repeat(201), email: 'x@example.com' } },
      400,
      'VALIDATION_ERROR',
      'customer.name',
    ],
    [
      { optionId: a.optionId, customer: { ...customer, timezone: 'Nowhere/City' } },
      400,
      'VALIDATION_ERROR',
      'customer.timezone',
    ],
    [{ optionId: 'opt_missing', customer }, 404, 'OPTION_NOT_FOUND'],
    [{ optionId: a.optionId, holdId: 'hld_missing', customer }, 404, 'HOLD_NOT_FOUND'],
  ];
  for (const [body, status, code, field] of cases) {
    const res = await o.api.post(`${base}/confirm`, body, idem());
    t.is(res.status, status, JSON.stringify(body));
    t.is(res.body.error.code, code);
    if (field) t.is(res.body.error.field, field);
  }
  const noKey = await o.api.post(`${base}/confirm`, { optionId: a.optionId, customer });
  t.is(noKey.body.error.code, 'IDEMPOTENCY_KEY_REQUIRED');
  const other = await newOrganization(svc, `bad-hold-other-${randomUUID().slice(0, 6)}`);
  t.is((await other.api.post(`${base}/options/${a.optionId}/hold`)).body.error.code, 'FORBIDDEN');
  t.is(
    (await other.api.post(`${base}/confirm`, { optionId: a.optionId, customer }, idem())).body.error.code,
    'FORBIDDEN',
  );
  const n = await svc.service.deps.db.query('SELECT count(*)::int AS n FROM bookings WHERE resolution_id = $1', [
    r.resolutionId,
  ]);
  t.is(n.rows[0].n, 0);
});
