import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { decodeSlotId, encodeSlotId } from '../../src/domain/availability/slot-id.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York (EST, UTC-5).
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
type Graph = Awaited<ReturnType<typeof providerWithService>>;

const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const db = () => svc.service.deps.db;
const uniq = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

/** An organization with one provider offering a 60-minute service on weekdays 09:00-17:00 New York. */
async function setup(name: string, opts: Parameters<typeof providerWithService>[2] = {}) {
  const o = await newOrganization(svc, uniq(name));
  const p = await providerWithService(o, { externalId: 'p1' }, opts);
  return { o, p };
}

const slotsOf = (o: Org, p: Graph, date: string, serviceId = p.service.id) =>
  o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${serviceId}&date=${date}`);

async function slotId(o: Org, p: Graph, date: string, time: string, serviceId = p.service.id): Promise<string> {
  const r = await slotsOf(o, p, date, serviceId);
  const s = r.body.slots?.find((x: any) => x.time === time);
  if (!s) throw new Error(`no slot ${date} ${time}: ${JSON.stringify(r.body)}`);
  return s.id;
}

const create = (o: Org, p: Graph, slot: string, extra: Record<string, unknown> = {}) =>
  o.api.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: slot,
    attendee,
    ...extra,
  });

const bookingCount = async (orgId: string) =>
  (await db().query('SELECT count(*)::int AS n FROM bookings WHERE organization_id = $1', [orgId])).rows[0].n as number;
const activeClaims = async (providerId: string) =>
  (
    await db().query(
      'SELECT ref_id, lower(during) AS s, upper(during) AS e FROM slot_claims WHERE provider_id = $1 AND active ORDER BY lower(during)',
      [providerId],
    )
  ).rows;
const events = async (orgId: string, type: string) =>
  (
    await db().query('SELECT data, mode FROM events WHERE organization_id = $1 AND type = $2 ORDER BY id', [
      orgId,
      type,
    ])
  ).rows;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

test.serial('a confirmed booking becomes completed by its durable timer when its end time passes', async (t) => {
  const { o, p } = await setup('complete');
  const created = await create(o, p, await slotId(o, p, '2026-03-02', '09:00'));
  t.is(created.status, 200, JSON.stringify(created.body));
  const id = created.body.data.id;
  const confirm = await request(
    svc.url,
    'GET',
    `/api/v1/bookings/${id}/confirm?token=${created.body.data.tokenToConfirm}`,
    { headers: { accept: 'application/json' } },
  );
  t.deepEqual(confirm.body, { bookingId: id, status: 'confirmed' });
  // Before the end time nothing happens.
  await new Promise((r) => setTimeout(r, 600));
  t.is((await o.api.get(`/api/v2/bookings/${id}`)).body.status, 'confirmed');
  clock.set('2026-03-02T15:00:01Z');
  let status = '';
  for (let i = 0; i < 60 && status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await o.api.get(`/api/v2/bookings/${id}`)).body.status;
  }
  t.is(status, 'completed');
  const [ev] = await events(o.org.id, 'booking.completed');
  t.like(ev?.data, {
    bookingId: id,
    providerId: p.provider.id,
    status: 'completed',
    slot: { start: '2026-03-02T14:00:00.000Z', end: '2026-03-02T15:00:00.000Z', timezone: 'America/New_York' },
  });
  t.deepEqual(await activeClaims(p.provider.id), [], 'the completed booking no longer claims time');
  const audit = await db().query(
    `SELECT actor FROM audit_events WHERE resource_id = $1 AND action = 'booking.complete'`,
    [id],
  );
  t.deepEqual(audit.rows[0]?.actor, { type: 'system' });
  // A cancel after completion is a state conflict.
  t.is((await o.api.post(`/api/v1/bookings/${id}/cancel`, {})).body.error.code, 'BOOKING_STATE_CONFLICT');
});

test('slots: the local date in the schedule timezone, stepped by the interval, labelled, and taken ones unavailable', async (t) => {
  const { o, p } = await setup('slots');
  const r = await slotsOf(o, p, '2026-03-03');
  t.is(r.status, 200, JSON.stringify(r.body));
  t.is(r.headers.get('deprecation'), 'false');
  t.regex(r.headers.get('link') ?? '', /^<http:\/\/127\.0\.0\.1:\d+\/api\/v2>; rel="successor-version"$/);
  t.is(r.body.total, 8);
  t.deepEqual(
    r.body.slots.map((s: any) => s.time),
    ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'],
  );
  t.deepEqual(r.body.slots.map((s: any) => s.label).slice(0, 5), [
    '9:00 AM',
    '10:00 AM',
    '11:00 AM',
    '12:00 PM',
    '1:00 PM',
  ]);
  t.true(r.body.slots.every((s: any) => s.available === true && s.date === '2026-03-03'));
  t.deepEqual(decodeSlotId(r.body.slots[0].id), {
    providerId: p.provider.id,
    serviceId: p.service.id,
    start: Date.parse('2026-03-03T14:00:00Z'),
  });
  t.is((await create(o, p, r.body.slots[1].id)).status, 200);
  const after = await slotsOf(o, p, '2026-03-03');
  t.deepEqual(
    after.body.slots.map((s: any) => s.available),
    [true, false, true, true, true, true, true, true],
  );
  // A weekend date has no slots; a provider without a schedule has none either.
  t.deepEqual((await slotsOf(o, p, '2026-03-07')).body, { slots: [], total: 0 });
  const bare = await providerWithService(o, { externalId: 'bare' }, { schedule: null });
  t.deepEqual((await slotsOf(o, bare, '2026-03-03')).body, { slots: [], total: 0 });
  // The service's slot interval steps the starts, independently of the duration.
  const interval = await providerWithService(
    o,
    { externalId: 'half' },
    { title: 'Check-in', duration: 30, service: { slotIntervalMinutes: 15 } },
  );
  const q = await slotsOf(o, interval, '2026-03-03');
  t.is(q.body.total, 31, '09:00 to 16:30 every 15 minutes');
  t.is(q.body.slots[1].label, '9:15 AM');
});

test('slots: bad and foreign input', async (t) => {
  const { o, p } = await setup('slots-bad');
  const other = await setup('slots-other');
  const cases: [string, number, string, string?][] = [
    [`providerId=${p.provider.id}&eventTypeId=${p.service.id}`, 400, 'VALIDATION_ERROR', 'date'],
    [`providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-02-30`, 400, 'VALIDATION_ERROR', 'date'],
    [`eventTypeId=${p.service.id}&date=2026-03-03`, 400, 'VALIDATION_ERROR', 'providerId'],
    [`providerId=prv_nope&eventTypeId=${p.service.id}&date=2026-03-03`, 404, 'PROVIDER_NOT_FOUND'],
    [`providerId=${p.provider.id}&eventTypeId=svc_nope&date=2026-03-03`, 404, 'SERVICE_NOT_FOUND'],
    [`providerId=${other.p.provider.id}&eventTypeId=${other.p.service.id}&date=2026-03-03`, 403, 'FORBIDDEN'],
    [`providerId=${p.provider.id}&eventTypeId=${other.p.service.id}&date=2026-03-03`, 403, 'FORBIDDEN'],
  ];
  for (const [qs, status, code, field] of cases) {
    const r = await o.api.get(`/api/v1/slots?${qs}`);
    t.is(r.status, status, qs);
    t.is(r.body.error.code, code, qs);
    t.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message', 'status'], 'v1 error envelope');
    if (field) t.true(r.body.error.message.startsWith(field), r.body.error.message);
  }
});

test('create: pending booking with v1 shape, readable through v1 and v2, and the confirmation link confirms it (JSON, HTML, again, wrong token)', async (t) => {
  const { o, p } = await setup('create');
  const r = await create(o, p, await slotId(o, p, '2026-03-03', '10:00'), { notes: 'first visit' });
  t.is(r.status, 200, JSON.stringify(r.body));
  t.is(r.headers.get('deprecation'), 'false');
  const d = r.body.data;
  t.regex(d.id, /^bkg_/);
  t.like(d, {
    status: 'pending',
    title: `Intake Session with Dr. p1`,
    date: '2026-03-03T15:00:00.000Z',
    end_time: '2026-03-03T16:00:00.000Z',
    resolutionId: null,
  });
  t.is(Buffer.from(d.tokenToConfirm, 'base64url').length, 32);

  const detail = await o.api.get(`/api/v1/bookings/${d.id}`);
  t.is(detail.status, 200);
  t.like(detail.body, {
    bookingId: d.id,
    status: 'pending',
    provider: { id: p.provider.id, name: 'Dr. p1' },
    service: { title: 'Intake Session', duration: 60 },
    attendee: { name: 'Pat Doe', email: 'pat@example.com' },
    start: d.date,
    end: d.end_time,
  });
  t.is(tokenOf(detail.body.confirmationUrl), d.tokenToConfirm);
  t.true(detail.body.confirmationUrl.endsWith(`/api/v1/bookings/${d.id}/confirm?token=${d.tokenToConfirm}`));
  const v2 = await o.api.get(`/api/v2/bookings/${d.id}`);
  t.like(v2.body, {
    id: d.id,
    organizationId: o.org.id,
    status: 'pending',
    source: 'v1',
    resolutionId: null,
    customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
    slot: { start: d.date, end: d.end_time, timezone: 'America/New_York' },
  });

  const row = (await db().query('SELECT status, notes, mode FROM bookings WHERE id = $1', [d.id])).rows[0];
  t.deepEqual(row, { status: 'pending', notes: 'first visit', mode: 'live' });
  t.deepEqual(
    (await activeClaims(p.provider.id)).map((c) => c.ref_id),
    [d.id],
  );
  const mail = (await db().query('SELECT kind, status, to_address FROM email_outbox WHERE booking_id = $1', [d.id]))
    .rows;
  t.deepEqual(
    mail,
    [{ kind: 'booking_confirmation', status: 'stored', to_address: 'pat@example.com' }],
    'no SMTP_URL: stored, never sent',
  );
  const audit = await db().query(`SELECT action FROM audit_events WHERE resource_id = $1`, [d.id]);
  t.deepEqual(
    audit.rows.map((a) => a.action),
    ['booking.create'],
  );

  const link = `/api/v1/bookings/${d.id}/confirm?token=${encodeURIComponent(d.tokenToConfirm)}`;
  const wrong = await request(svc.url, 'GET', `/api/v1/bookings/${d.id}/confirm?token=${'A'.repeat(43)}`, {
    headers: { accept: 'application/json' },
  });
  t.is(wrong.status, 404);
  t.is(wrong.body.error.code, 'BOOKING_NOT_FOUND');
  const unknown = await request(svc.url, 'GET', `/api/v1/bookings/bkg_nope/confirm?token=${d.tokenToConfirm}`);
  t.is(unknown.status, 404);
  t.is((await o.api.get(`/api/v1/bookings/${d.id}`)).body.status, 'pending', 'a wrong token changes nothing');

  const json = await request(svc.url, 'GET', link, { headers: { accept: 'application/json' } });
  t.is(json.status, 200);
  t.deepEqual(json.body, { bookingId: d.id, status: 'confirmed' });
  const html = await request(svc.url, 'GET', link);
  t.is(html.status, 200, 'again: still 200');
  t.regex(html.headers.get('content-type') ?? '', /^text\/html/);
  t.true(String(html.body).includes('Your booking is confirmed'));
  t.true(String(html.body).includes('Intake Session with Dr. p1'));
  t.is((await o.api.get(`/api/v2/bookings/${d.id}`)).body.status, 'confirmed');

  const confirmed = await events(o.org.id, 'booking.confirmed');
  t.is(confirmed.length, 1, 'one event however often the link is followed');
  t.deepEqual(confirmed[0].data, {
    bookingId: d.id,
    resolutionId: null,
    providerId: p.provider.id,
    slot: { start: d.date, end: d.end_time, timezone: 'America/New_York' },
    status: 'confirmed',
  });
  t.is(confirmed[0].mode, 'live');
  const sys = await db().query(`SELECT actor FROM audit_events WHERE resource_id = $1 AND action = 'booking.confirm'`, [
    d.id,
  ]);
  t.deepEqual(
    sys.rows.map((a) => a.actor),
    [{ type: 'system' }],
  );
});

test('create: bad input answers the contract error and changes nothing', async (t) => {
  const { o, p } = await setup('create-bad');
  const other = await setup('create-bad-other');
  const good = await slotId(o, p, '2026-03-03', '09:00');
  const goodStart = decodeSlotId(good)!.start;
  const base = { providerId: p.provider.id, serviceId: p.service.id, slotId: good, attendee };
  const cases: [string, Record<string, unknown>, number, string, string?][] = [
    ['missing attendee', { ...base, attendee: undefined }, 400, 'VALIDATION_ERROR', 'attendee'],
    [
      'missing attendee.name',
      { ...base, attendee: { email: 'a@example.com' } },
      400,
      'VALIDATION_ERROR',
      'attendee.name',
    ],
    ['missing attendee.email', { ...base, attendee: { name: 'A' } }, 400, 'VALIDATION_ERROR', 'attendee.email'],
    [
      'malformed attendee.email',
      { ...base, attendee: { name: 'A', email: 'nope' } },
      400,
      'VALIDATION_ERROR',
      'attendee.email',
    ],
    [
      'name over 200 code points',
      { ...base, attendee: { ...attendee, name: '😀'.repeat(201) } },
      400,
      'VALIDATION_ERROR',
      'attendee.name',
    ],
    [
      'unknown timezone',
      { ...base, attendee: { ...attendee, timezone: 'Mars/Base' } },
      400,
      'VALIDATION_ERROR',
      'attendee.timezone',
    ],
    ['notes over 5000', { ...base, notes: 'x'.repeat(5001) }, 400, 'VALIDATION_ERROR', 'notes'],
    ['missing slotId', { ...base, slotId: undefined }, 400, 'VALIDATION_ERROR', 'slotId'],
    ['malformed slotId', { ...base, slotId: 'not-a-slot' }, 400, 'VALIDATION_ERROR', 'slotId'],
    ['tampered slotId', { ...base, slotId: `${good}x` }, 400, 'VALIDATION_ERROR', 'slotId'],
    [
      'slotId of another service',
      { ...base, slotId: encodeSlotId({ providerId: p.provider.id, serviceId: 'svc_other', start: goodStart }) },
      400,
      'VALIDATION_ERROR',
      'slotId',
    ],
    [
      'off-grid start',
      {
        ...base,
        slotId: encodeSlotId({ providerId: p.provider.id, serviceId: p.service.id, start: goodStart + 30 * 60_000 }),
      },
      422,
      'SLOT_OUTSIDE_AVAILABILITY',
    ],
    [
      'outside the hours',
      {
        ...base,
        slotId: encodeSlotId({
          providerId: p.provider.id,
          serviceId: p.service.id,
          start: Date.parse('2026-03-03T23:00:00Z'),
        }),
      },
      422,
      'SLOT_OUTSIDE_AVAILABILITY',
    ],
    [
      'weekend',
      {
        ...base,
        slotId: encodeSlotId({
          providerId: p.provider.id,
          serviceId: p.service.id,
          start: Date.parse('2026-03-07T14:00:00Z'),
        }),
      },
      422,
      'SLOT_OUTSIDE_AVAILABILITY',
    ],
    [
      'past slot',
      {
        ...base,
        slotId: encodeSlotId({
          providerId: p.provider.id,
          serviceId: p.service.id,
          start: Date.parse('2026-02-27T14:00:00Z'),
        }),
      },
      422,
      'SLOT_OUTSIDE_AVAILABILITY',
    ],
    [
      'unknown provider',
      {
        ...base,
        providerId: 'prv_nope',
        slotId: encodeSlotId({ providerId: 'prv_nope', serviceId: p.service.id, start: goodStart }),
      },
      404,
      'PROVIDER_NOT_FOUND',
    ],
    [
      'other organization provider',
      {
        providerId: other.p.provider.id,
        serviceId: other.p.service.id,
        slotId: encodeSlotId({ providerId: other.p.provider.id, serviceId: other.p.service.id, start: goodStart }),
        attendee,
      },
      403,
      'FORBIDDEN',
    ],
  ];
  for (const [name, body, status, code, field] of cases) {
    const r = await o.api.post('/api/v1/bookings', body);
    t.is(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
    t.is(r.body.error?.code, code, name);
    if (field) t.true(r.body.error.message.startsWith(field), `${name}: ${r.body.error.message}`);
  }
  const raw = await request(svc.url, 'POST', '/api/v1/bookings', { key: o.key, rawBody: '{"providerId":' });
  t.is(raw.body.error.code, 'INVALID_JSON');
  t.is(await bookingCount(o.org.id), 0);
  t.is(await bookingCount(other.o.org.id), 0);
  t.deepEqual(await activeClaims(p.provider.id), []);
  t.is(
    (await db().query('SELECT count(*)::int AS n FROM email_outbox WHERE organization_id = $1', [o.org.id])).rows[0].n,
    0,
  );
});

test('50 concurrent v1 creates for one slot: exactly one 200, the rest 409 SLOT_UNAVAILABLE', async (t) => {
  const { o, p } = await setup('burst');
  const slot = await slotId(o, p, '2026-03-04', '13:00');
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      create(o, p, slot, { attendee: { name: `Client ${i}`, email: `c${i}@example.com` } }),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  t.is(ok.length, 1, JSON.stringify(results.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.body)));
  const losers = results.filter((r) => r.status !== 200);
  t.is(losers.length, 49);
  t.true(
    losers.every((r) => r.status === 409 && r.body.error.code === 'SLOT_UNAVAILABLE'),
    JSON.stringify(losers.filter((r) => r.status !== 409).map((r) => [r.status, r.body.error?.message])),
  );
  t.is(await bookingCount(o.org.id), 1);
  t.deepEqual(
    (await activeClaims(p.provider.id)).map((c) => c.ref_id),
    [ok[0]!.body.data.id],
  );
  t.is(
    (await db().query('SELECT count(*)::int AS n FROM email_outbox WHERE organization_id = $1', [o.org.id])).rows[0].n,
    1,
    'losers leave no e-mail behind',
  );
});

test('overlapping slots of different durations and buffers never double-book a provider', async (t) => {
  const o = await newOrganization(svc, uniq('overlap'));
  const long = await providerWithService(
    o,
    { externalId: 'ov' },
    { title: 'Long Session', duration: 60, service: { slotIntervalMinutes: 30 } },
  );
  const shortSvc = (
    await o.api.post('/api/v2/services', {
      providerId: long.provider.id,
      title: 'Short Session',
      duration: 30,
      bufferAfterMinutes: 15,
    })
  ).body;
  t.truthy(shortSvc.id, JSON.stringify(shortSvc));
  const short: Graph = { ...long, service: shortSvc };
  // 10:00-11:00 (60 minutes).
  t.is((await create(o, long, await slotId(o, long, '2026-03-05', '10:00'))).status, 200);
  const shortSlots = (await slotsOf(o, short, '2026-03-05')).body.slots as any[];
  const avail = Object.fromEntries(shortSlots.map((s) => [s.time, s.available]));
  // 09:30 + 30 min + 15 min buffer ends 10:15: overlaps; 09:00 ends 09:45 (with buffer): free.
  t.like(avail, { '09:00': true, '09:30': false, '10:00': false, '10:30': false, '11:00': true });
  for (const time of ['09:30', '10:30']) {
    const id = shortSlots.find((s) => s.time === time).id;
    const r = await create(o, short, id);
    t.is(r.status, 409, time);
    t.is(r.body.error.code, 'SLOT_UNAVAILABLE');
  }
  // The short session at 11:00 claims 11:00-11:45 (buffer): a long one at 11:30 overlaps it, at 12:00 it does not.
  t.is((await create(o, short, shortSlots.find((s) => s.time === '11:00').id)).status, 200);
  const longAt = async (time: string) => create(o, long, await slotId(o, long, '2026-03-05', time));
  t.is((await longAt('11:30')).body.error?.code, 'SLOT_UNAVAILABLE');
  t.is((await longAt('12:00')).status, 200);
  const claims = await activeClaims(long.provider.id);
  t.is(claims.length, 3);
  for (let i = 1; i < claims.length; i++)
    t.true(claims[i - 1].e.getTime() <= claims[i].s.getTime(), 'no two active claims overlap');
});

test('cancel with an Idempotency-Key: a retry answers the first cancellation, another body with the key is 409 IDEMPOTENCY_KEY_REUSED', async (t) => {
  const { o, p } = await setup('cancel-idem');
  const made = await create(o, p, await slotId(o, p, '2026-03-03', '10:00'));
  const id = made.body.data.id;
  const key = { 'idempotency-key': randomUUID() };
  const first = await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'moved away' }, key);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(first.headers.get('idempotent-replayed'), null);
  const cancelledAt = first.body.cancelledAt;
  // (The clock is shared with this file's other tests, which run at once: it is not moved here.)
  const retry = await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'moved away' }, key);
  t.is(retry.status, 200, 'a retry after a lost answer is answered, not 409');
  t.deepEqual(retry.body, { bookingId: id, status: 'cancelled', cancelledAt });
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  const other = await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'another reason' }, key);
  t.is(other.status, 409);
  t.is(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  // Without the key a second cancel is the state conflict it always was, and one cancellation was recorded.
  t.is((await o.api.post(`/api/v1/bookings/${id}/cancel`, {})).body.error.code, 'BOOKING_STATE_CONFLICT');
  t.is((await events(o.org.id, 'booking.cancelled')).filter((e: any) => e.data.bookingId === id).length, 1);
});

test('cancel: frees the slot, emits booking.cancelled, stores the notice; wrong-state cancel and reschedule are 409', async (t) => {
  const { o, p } = await setup('cancel');
  const slot = await slotId(o, p, '2026-03-03', '11:00');
  const made = await create(o, p, slot);
  const id = made.body.data.id;
  const c = await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'feeling better' });
  t.is(c.status, 200, JSON.stringify(c.body));
  t.deepEqual(c.body, { bookingId: id, status: 'cancelled', cancelledAt: clock().toISOString() });
  t.deepEqual(await activeClaims(p.provider.id), []);
  t.true((await slotsOf(o, p, '2026-03-03')).body.slots.find((s: any) => s.time === '11:00').available);
  const [ev] = await events(o.org.id, 'booking.cancelled');
  t.like(ev?.data, {
    bookingId: id,
    providerId: p.provider.id,
    status: 'cancelled',
    cancelledAt: clock().toISOString(),
    reason: 'feeling better',
  });
  const mails = (
    await db().query('SELECT kind, subject, text_body FROM email_outbox WHERE booking_id = $1 ORDER BY id', [id])
  ).rows;
  t.deepEqual(
    mails.map((m) => m.kind),
    ['booking_confirmation', 'booking_cancellation'],
  );
  t.true(mails[1].text_body.includes('Reason: feeling better'));
  t.like((await o.api.get(`/api/v2/bookings/${id}`)).body, { status: 'cancelled', cancelledAt: clock().toISOString() });

  const before = (await db().query('SELECT * FROM bookings WHERE id = $1', [id])).rows[0];
  for (const [path, body] of [
    [`/api/v1/bookings/${id}/cancel`, {}],
    [`/api/v1/bookings/${id}/reschedule`, { date: '2026-03-04', time: '09:00' }],
  ] as const) {
    const r = await o.api.post(path, body);
    t.is(r.status, 409, path);
    t.is(r.body.error.code, 'BOOKING_STATE_CONFLICT');
  }
  t.deepEqual((await db().query('SELECT * FROM bookings WHERE id = $1', [id])).rows[0], before);
  t.is(await bookingCount(o.org.id), 1);
  // Cancelling without a body works too; the link of a cancelled booking is a conflict.
  const second = await create(o, p, slot);
  t.is((await request(svc.url, 'POST', `/api/v1/bookings/${second.body.data.id}/cancel`, { key: o.key })).status, 200);
  const link = await request(
    svc.url,
    'GET',
    `/api/v1/bookings/${second.body.data.id}/confirm?token=${second.body.data.tokenToConfirm}`,
    { headers: { accept: 'application/json' } },
  );
  t.is(link.status, 409);
  t.is(link.body.error.code, 'BOOKING_STATE_CONFLICT');
});

test('reschedule: original becomes rescheduled, a new pending booking takes the new local slot, events and e-mail', async (t) => {
  const { o, p } = await setup('resched');
  const made = await create(o, p, await slotId(o, p, '2026-03-04', '09:00'));
  const oldId = made.body.data.id;
  // Confirm first: a confirmed booking can be rescheduled too.
  await request(svc.url, 'GET', `/api/v1/bookings/${oldId}/confirm?token=${made.body.data.tokenToConfirm}`, {
    headers: { accept: 'application/json' },
  });
  const r = await o.api.post(`/api/v1/bookings/${oldId}/reschedule`, {
    date: '2026-03-04',
    time: '14:00',
    notes: 'moved',
  });
  t.is(r.status, 200, JSON.stringify(r.body));
  t.is(r.headers.get('deprecation'), 'false');
  t.deepEqual(Object.keys(r.body.data).sort(), ['date', 'end_time', 'id', 'status', 'title']);
  const newId = r.body.data.id;
  t.not(newId, oldId);
  t.like(r.body.data, {
    status: 'pending',
    title: 'Intake Session with Dr. p1',
    date: '2026-03-04T19:00:00.000Z',
    end_time: '2026-03-04T20:00:00.000Z',
  });
  t.like((await o.api.get(`/api/v1/bookings/${oldId}`)).body, { status: 'rescheduled', rescheduledTo: newId });
  const fresh = (await o.api.get(`/api/v1/bookings/${newId}`)).body;
  t.like(fresh, { status: 'pending', rescheduledFrom: oldId, attendee: { name: 'Pat Doe', email: 'pat@example.com' } });
  t.truthy(fresh.confirmationUrl);
  t.deepEqual(
    (await activeClaims(p.provider.id)).map((c) => c.ref_id),
    [newId],
  );
  const [ev] = await events(o.org.id, 'booking.rescheduled');
  t.like(ev?.data, {
    bookingId: oldId,
    rescheduledTo: newId,
    providerId: p.provider.id,
    status: 'rescheduled',
    slot: { start: '2026-03-04T19:00:00.000Z', end: '2026-03-04T20:00:00.000Z', timezone: 'America/New_York' },
  });
  const mail = (await db().query('SELECT kind FROM email_outbox WHERE booking_id = $1', [newId])).rows;
  t.deepEqual(mail, [{ kind: 'booking_confirmation' }]);
  // The new booking is confirmed by its own link.
  const link = await request(
    svc.url,
    'GET',
    `/api/v1/bookings/${newId}/confirm?token=${tokenOf(fresh.confirmationUrl)}`,
    { headers: { accept: 'application/json' } },
  );
  t.deepEqual(link.body, { bookingId: newId, status: 'confirmed' });
  // Moving into its own time (an overlap with itself) is allowed.
  const self = await o.api.post(`/api/v1/bookings/${newId}/reschedule`, { date: '2026-03-04', time: '14:00' });
  t.is(self.status, 200, JSON.stringify(self.body));
});

test('reschedule: bad input answers the contract error and changes nothing', async (t) => {
  const { o, p } = await setup('resched-bad');
  const other = await setup('resched-bad-other');
  const made = await create(o, p, await slotId(o, p, '2026-03-05', '09:00'));
  const blocker = await create(o, p, await slotId(o, p, '2026-03-05', '15:00'));
  t.is(blocker.status, 200);
  const id = made.body.data.id;
  const foreign = await create(other.o, other.p, await slotId(other.o, other.p, '2026-03-05', '09:00'));
  const cases: [string, string, unknown, number, string][] = [
    ['combined datetime', id, { datetime: '2026-03-05T10:00:00-05:00' }, 422, 'COMBINED_DATETIME_NOT_ACCEPTED'],
    [
      'start field',
      id,
      { start: '2026-03-05T10:00:00Z', date: '2026-03-05', time: '10:00' },
      422,
      'COMBINED_DATETIME_NOT_ACCEPTED',
    ],
    ['missing time', id, { date: '2026-03-05' }, 400, 'VALIDATION_ERROR'],
    ['missing date', id, { time: '10:00' }, 400, 'VALIDATION_ERROR'],
    ['no body', id, undefined, 400, 'VALIDATION_ERROR'],
    ['malformed time', id, { date: '2026-03-05', time: '10am' }, 400, 'VALIDATION_ERROR'],
    ['impossible date', id, { date: '2026-02-30', time: '10:00' }, 400, 'VALIDATION_ERROR'],
    ['off-grid time', id, { date: '2026-03-05', time: '10:30' }, 422, 'SLOT_OUTSIDE_AVAILABILITY'],
    ['outside the hours', id, { date: '2026-03-05', time: '18:00' }, 422, 'SLOT_OUTSIDE_AVAILABILITY'],
    ['weekend', id, { date: '2026-03-07', time: '10:00' }, 422, 'SLOT_OUTSIDE_AVAILABILITY'],
    ['past', id, { date: '2026-02-27', time: '10:00' }, 422, 'SLOT_OUTSIDE_AVAILABILITY'],
    ['taken slot', id, { date: '2026-03-05', time: '15:00' }, 409, 'SLOT_UNAVAILABLE'],
    ['unknown booking', 'bkg_nope', { date: '2026-03-05', time: '10:00' }, 404, 'BOOKING_NOT_FOUND'],
    ['other organization booking', foreign.body.data.id, { date: '2026-03-05', time: '10:00' }, 403, 'FORBIDDEN'],
  ];
  const snapshot = async () =>
    (
      await db().query('SELECT id, status, rescheduled_to FROM bookings WHERE organization_id = ANY($1) ORDER BY id', [
        [o.org.id, other.o.org.id],
      ])
    ).rows;
  const before = await snapshot();
  for (const [name, target, body, status, code] of cases) {
    const r = await o.api.post(`/api/v1/bookings/${target}/reschedule`, body);
    t.is(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
    t.is(r.body.error?.code, code, name);
  }
  t.deepEqual(await snapshot(), before);
  t.is((await events(o.org.id, 'booking.rescheduled')).length, 0);
  t.deepEqual((await activeClaims(p.provider.id)).map((c) => c.ref_id).sort(), [id, blocker.body.data.id].sort());
});

test('other organization ids are 403 FORBIDDEN and unknown ids 404 BOOKING_NOT_FOUND on every booking endpoint', async (t) => {
  const { o, p } = await setup('tenancy');
  const intruder = await newOrganization(svc, uniq('intruder'));
  const made = await create(o, p, await slotId(o, p, '2026-03-06', '09:00'));
  const id = made.body.data.id;
  const calls: [string, () => Promise<any>][] = [
    ['v1 get', () => intruder.api.get(`/api/v1/bookings/${id}`)],
    ['v2 get', () => intruder.api.get(`/api/v2/bookings/${id}`)],
    ['cancel', () => intruder.api.post(`/api/v1/bookings/${id}/cancel`, {})],
    ['reschedule', () => intruder.api.post(`/api/v1/bookings/${id}/reschedule`, { date: '2026-03-06', time: '10:00' })],
    ['v2 list by provider', () => intruder.api.get(`/api/v2/bookings?providerId=${p.provider.id}`)],
  ];
  for (const [name, call] of calls) {
    const r = await call();
    t.is(r.status, 403, name);
    t.is(r.body.error.code, 'FORBIDDEN', name);
  }
  for (const path of ['/api/v1/bookings/bkg_nope', '/api/v2/bookings/bkg_nope']) {
    const r = await o.api.get(path);
    t.is(r.status, 404, path);
    t.is(r.body.error.code, 'BOOKING_NOT_FOUND');
  }
  t.is((await intruder.api.get('/api/v1/bookings')).body.total, 0, 'lists are organization scoped');
  t.deepEqual((await intruder.api.get('/api/v2/bookings')).body.data, []);
  t.is((await o.api.get(`/api/v2/bookings/${id}`)).body.status, 'pending', 'nothing changed');
  const noKey = await request(svc.url, 'GET', `/api/v1/bookings/${id}`);
  t.is(noKey.status, 401);
});

test('lists: v1 page/limit/status newest first, v2 filters and cursor; v1 and v2 see the same bookings', async (t) => {
  const { o, p } = await setup('lists');
  const ids: string[] = [];
  for (const time of ['09:00', '10:00', '11:00', '12:00', '13:00'])
    ids.push((await create(o, p, await slotId(o, p, '2026-03-09', time))).body.data.id);
  await o.api.post(`/api/v1/bookings/${ids[1]}/cancel`, {});
  const all = await o.api.get('/api/v1/bookings');
  t.is(all.status, 200);
  t.is(all.headers.get('deprecation'), 'false');
  t.like(all.body, { total: 5, page: 1, limit: 20 });
  t.deepEqual(
    all.body.bookings.map((b: any) => b.bookingId),
    [...ids].reverse(),
  );
  t.deepEqual(Object.keys(all.body.bookings[0]).sort(), ['bookingId', 'end', 'provider', 'start', 'status']);
  t.deepEqual(all.body.bookings[0].provider, { name: 'Dr. p1' });
  const page2 = await o.api.get('/api/v1/bookings?page=2&limit=2');
  t.deepEqual(
    page2.body.bookings.map((b: any) => b.bookingId),
    [ids[2], ids[1]],
  );
  t.like(page2.body, { total: 5, page: 2, limit: 2 });
  const cancelled = await o.api.get('/api/v1/bookings?status=cancelled');
  t.deepEqual(
    cancelled.body.bookings.map((b: any) => b.bookingId),
    [ids[1]],
  );
  t.is(cancelled.body.total, 1);
  for (const qs of ['limit=101', 'limit=0', 'limit=abc', 'page=0', 'status=bogus']) {
    const r = await o.api.get(`/api/v1/bookings?${qs}`);
    t.is(r.status, 400, qs);
    t.is(r.body.error.code, 'VALIDATION_ERROR', qs);
  }

  const first = await o.api.get('/api/v2/bookings?limit=2');
  t.deepEqual(
    first.body.data.map((b: any) => b.id),
    [ids[4], ids[3]],
  );
  t.true(first.body.hasMore);
  const second = await o.api.get(`/api/v2/bookings?limit=2&cursor=${first.body.nextCursor}`);
  t.deepEqual(
    second.body.data.map((b: any) => b.id),
    [ids[2], ids[1]],
  );
  const third = await o.api.get(`/api/v2/bookings?limit=2&cursor=${second.body.nextCursor}`);
  t.deepEqual(
    third.body.data.map((b: any) => b.id),
    [ids[0]],
  );
  t.false(third.body.hasMore);
  t.is(third.body.nextCursor, null);
  t.deepEqual(
    (await o.api.get('/api/v2/bookings?status=cancelled')).body.data.map((b: any) => b.id),
    [ids[1]],
  );
  const other = await providerWithService(o, { externalId: 'p2' });
  t.deepEqual((await o.api.get(`/api/v2/bookings?providerId=${other.provider.id}`)).body.data, []);
  t.is((await o.api.get(`/api/v2/bookings?providerId=${p.provider.id}`)).body.data.length, 5);
  for (const qs of ['status=bogus', 'limit=0', 'cursor=!!', 'providerId=prv_nope']) {
    const r = await o.api.get(`/api/v2/bookings?${qs}`);
    t.true(r.status === 400 || r.status === 404, qs);
  }
});
