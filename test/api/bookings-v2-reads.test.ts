import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client, request } from '../helpers/http.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Sam Roe', email: 'sam@example.com', timezone: 'Europe/Berlin' };
const db = () => svc.service.deps.db;

/** An organization, a provider, and a booking confirmed through a v2 resolution (first option, 09:00 New York on 3 March). */
async function v2Booking(name: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  const option = r.body.options[0];
  const b = await o.api.post(
    `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
    { optionId: option.optionId, customer, metadata: { channel: 'web' } },
    idem(),
  );
  if (b.status !== 200) throw new Error(JSON.stringify(b.body));
  return { o, p, resolutionId: r.body.resolutionId as string, option, booking: b.body };
}

test('a v2 booking reads the same through GET /api/v2/bookings/:id and every v1 read', async (t) => {
  const { o, p, resolutionId, option, booking } = await v2Booking('v2-read');
  const v2 = await o.api.get(`/api/v2/bookings/${booking.id}`);
  t.is(v2.status, 200);
  t.deepEqual(v2.body, booking, 'the read equals the confirm answer');
  t.deepEqual(Object.keys(v2.body).sort(), [
    'cancelledAt',
    'createdAt',
    'customer',
    'id',
    'metadata',
    'optionId',
    'organizationId',
    'provider',
    'rescheduledFrom',
    'rescheduledTo',
    'resolutionId',
    'service',
    'slot',
    'source',
    'status',
    'updatedAt',
  ]);
  t.like(v2.body, {
    status: 'confirmed',
    source: 'v2',
    resolutionId,
    optionId: option.optionId,
    slot: option.slot,
    customer: { name: 'Sam Roe', email: 'sam@example.com', timezone: 'Europe/Berlin' },
    metadata: { channel: 'web' },
  });

  const v1 = await o.api.get(`/api/v1/bookings/${booking.id}`);
  t.is(v1.status, 200);
  t.is(v1.headers.get('deprecation'), 'false');
  t.deepEqual(v1.body, {
    bookingId: booking.id,
    status: 'confirmed',
    provider: { id: p.provider.id, name: 'Dr. p1', username: null },
    service: { title: 'Intake Session', duration: 60 },
    attendee: { name: 'Sam Roe', email: 'sam@example.com' },
    start: option.slot.start,
    end: option.slot.end,
    confirmationUrl: null,
    rescheduledFrom: null,
    rescheduledTo: null,
  });
  const list = await o.api.get('/api/v1/bookings?status=confirmed');
  t.deepEqual(list.body.bookings, [
    {
      bookingId: booking.id,
      status: 'confirmed',
      provider: { name: 'Dr. p1' },
      start: option.slot.start,
      end: option.slot.end,
    },
  ]);
  // Platform key acting in the organization reads it; in its default organization it is another tenant's.
  t.is((await o.platform.get(`/api/v2/bookings/${booking.id}`)).status, 200);
  const platformDefault = await client(svc.url, svc.platformKey).get(`/api/v2/bookings/${booking.id}`);
  t.is(platformDefault.status, 403);
  t.is(platformDefault.body.error.code, 'FORBIDDEN');
  t.is(platformDefault.body.error.requestId, platformDefault.headers.get('x-service-request-id'), 'v2 error envelope');
  // A v2 booking has no confirmation token: no link confirms anything.
  const link = await request(svc.url, 'GET', `/api/v1/bookings/${booking.id}/confirm?token=anything`);
  t.is(link.status, 404);
  t.is(link.body.error.code, 'BOOKING_NOT_FOUND');
});

test('a v1 booking reads through v2 with its attendee as customer, and v2 lists filter by status and provider', async (t) => {
  const { o, p, booking } = await v2Booking('v1-in-v2');
  const slots = (
    await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-04`)
  ).body.slots;
  const made = await o.api.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: slots[2].id,
    attendee: { name: 'Lee', email: 'lee@example.com' },
  });
  t.is(made.status, 200, JSON.stringify(made.body));
  const v2 = (await o.api.get(`/api/v2/bookings/${made.body.data.id}`)).body;
  t.like(v2, {
    id: made.body.data.id,
    status: 'pending',
    source: 'v1',
    resolutionId: null,
    optionId: null,
    customer: { name: 'Lee', email: 'lee@example.com', timezone: null },
    metadata: {},
    slot: { start: made.body.data.date, end: made.body.data.end_time, timezone: 'America/New_York' },
  });
  const all = await o.api.get('/api/v2/bookings');
  t.deepEqual(
    all.body.data.map((b: any) => b.id),
    [made.body.data.id, booking.id],
    'newest first',
  );
  t.false(all.body.hasMore);
  t.deepEqual(
    (await o.api.get('/api/v2/bookings?status=pending')).body.data.map((b: any) => b.id),
    [made.body.data.id],
  );
  t.deepEqual(
    (await o.api.get('/api/v2/bookings?status=confirmed')).body.data.map((b: any) => b.id),
    [booking.id],
  );
  t.deepEqual((await o.api.get(`/api/v2/bookings?providerId=${p.provider.id}&status=completed`)).body.data, []);
  const v1list = await o.api.get('/api/v1/bookings');
  t.deepEqual(
    v1list.body.bookings.map((b: any) => b.bookingId),
    [made.body.data.id, booking.id],
  );
  t.is(v1list.body.total, 2);
});

test('v1 cancel and reschedule work on a v2 booking: the slot is freed, the new booking is pending and v1', async (t) => {
  const { o, p, booking, option } = await v2Booking('v2-change');
  const date = '2026-03-03';
  const slotsUrl = `/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=${date}`;
  const takenBefore = (await o.api.get(slotsUrl)).body.slots.find((s: any) => s.id && s.time === '09:00');
  t.is(takenBefore.available, false, 'the confirmed v2 booking takes its slot');
  const moved = await o.api.post(`/api/v1/bookings/${booking.id}/reschedule`, { date, time: '13:00' });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  const fresh = (await o.api.get(`/api/v2/bookings/${moved.body.data.id}`)).body;
  t.like(fresh, {
    status: 'pending',
    source: 'v1',
    resolutionId: null,
    rescheduledFrom: booking.id,
    customer: { name: 'Sam Roe', email: 'sam@example.com', timezone: 'Europe/Berlin' },
    metadata: { channel: 'web' },
  });
  t.like((await o.api.get(`/api/v2/bookings/${booking.id}`)).body, {
    status: 'rescheduled',
    rescheduledTo: moved.body.data.id,
    resolutionId: booking.resolutionId,
  });
  const after = (await o.api.get(slotsUrl)).body.slots;
  t.true(after.find((s: any) => s.time === '09:00').available, 'the original slot is free again');
  t.false(after.find((s: any) => s.time === '13:00').available);
  t.is(option.slot.start, '2026-03-03T14:00:00.000Z');
  const [ev] = (
    await db().query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'booking.rescheduled'`, [o.org.id])
  ).rows;
  t.like(ev?.data, {
    bookingId: booking.id,
    rescheduledTo: moved.body.data.id,
    resolutionId: booking.resolutionId,
    status: 'rescheduled',
  });
  const cancel = await o.api.post(`/api/v1/bookings/${moved.body.data.id}/cancel`, { reason: 'conflict' });
  t.deepEqual(cancel.body, { bookingId: moved.body.data.id, status: 'cancelled', cancelledAt: clock().toISOString() });
  t.true((await o.api.get(slotsUrl)).body.slots.every((s: any) => s.available));
  t.is(
    (await o.api.post(`/api/v1/bookings/${booking.id}/cancel`, {})).body.error.code,
    'BOOKING_STATE_CONFLICT',
    'a rescheduled booking is final',
  );
});

test('v2 reads: bad input', async (t) => {
  const { o } = await v2Booking('v2-bad');
  const cases: [string, number, string][] = [
    ['/api/v2/bookings/bkg_unknown', 404, 'BOOKING_NOT_FOUND'],
    ['/api/v2/bookings?limit=0', 400, 'VALIDATION_ERROR'],
    ['/api/v2/bookings?limit=501', 400, 'VALIDATION_ERROR'],
    ['/api/v2/bookings?limit=abc', 400, 'VALIDATION_ERROR'],
    ['/api/v2/bookings?status=booked', 400, 'VALIDATION_ERROR'],
    ['/api/v2/bookings?cursor=%25%25', 400, 'VALIDATION_ERROR'],
    ['/api/v2/bookings?providerId=prv_unknown', 404, 'PROVIDER_NOT_FOUND'],
  ];
  for (const [path, status, code] of cases) {
    const r = await o.api.get(path);
    t.is(r.status, status, path);
    t.is(r.body.error.code, code, path);
    t.truthy(r.body.error.requestId, 'v2 envelope');
  }
});

test.serial(
  'an active hold makes the v1 slot unavailable and a v1 create 409; once the hold lapses the slot books',
  async (t) => {
    const o = await newOrganization(svc, `held-${randomUUID().slice(0, 8)}`);
    const p = await providerWithService(o, { externalId: 'p1' });
    const r = (
      await o.api.post(
        '/api/v2/resolutions',
        { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
        idem(),
      )
    ).body;
    const held = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${r.options[0].optionId}/hold`, {
      ttlSeconds: 5,
    });
    t.is(held.status, 200, JSON.stringify(held.body));
    const slotsUrl = `/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`;
    const slot = (await o.api.get(slotsUrl)).body.slots.find((s: any) => s.time === '09:00');
    t.is(slot.available, false);
    const body = {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slot.id,
      attendee: { name: 'Ann', email: 'ann@example.com' },
    };
    const taken = await o.api.post('/api/v1/bookings', body);
    t.is(taken.status, 409);
    t.is(taken.body.error.code, 'SLOT_UNAVAILABLE');
    clock.advance(6_000);
    t.true(
      (await o.api.get(slotsUrl)).body.slots.find((s: any) => s.time === '09:00').available,
      'a lapsed hold is not busy time',
    );
    const booked = await o.api.post('/api/v1/bookings', body);
    t.is(booked.status, 200, JSON.stringify(booked.body));
  },
);
