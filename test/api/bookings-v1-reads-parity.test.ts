import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';

/**
 * The v1 booking reads answer what they always answered, now that they are GetBooking and ListBookings rendered by the
 * gateway: each v1 answer is compared, as text (members, order, nulls), with what the v1 contract says it is of the
 * same booking's v2 answer and its create answer. Written against the v1 RPCs' answers; it passes on both.
 */

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** The v1 detail of a booking from its v2 answer, the provider's username and its confirmation link (or null). */
function v1DetailOf(v2: any, username: string | null, confirmationUrl: string | null) {
  return {
    bookingId: v2.id,
    status: v2.status,
    provider: { id: v2.provider.id, name: v2.provider.displayName, username },
    service: { title: v2.service.displayName, duration: v2.service.durationMinutes },
    attendee: { name: v2.customer.name, email: v2.customer.email },
    start: v2.slot.start,
    end: v2.slot.end,
    confirmationUrl,
    rescheduledFrom: v2.rescheduledFrom,
    rescheduledTo: v2.rescheduledTo,
  };
}

/** The v1 list item of a booking from its v2 answer. */
const v1ItemOf = (v2: any) => ({
  bookingId: v2.id,
  status: v2.status,
  provider: { name: v2.provider.displayName },
  start: v2.slot.start,
  end: v2.slot.end,
});

test('GET /api/v1/bookings/:id and GET /api/v1/bookings answer the v1 shapes of the same bookings', async (t) => {
  const o = await newOrganization(svc, `parity-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', username: 'dr-p1' });
  const slots = (
    await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`)
  ).body.slots;
  const made: any[] = [];
  for (const s of slots.slice(0, 4)) {
    const r = await o.api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: s.id,
      attendee,
    });
    t.is(r.status, 200, JSON.stringify(r.body));
    made.push(r.body.data);
    clock.advance(1000);
  }
  // One of each: pending, confirmed (by its link), rescheduled (and its new pending booking), cancelled.
  t.is(
    (await request(svc.url, 'GET', `/api/v1/bookings/${made[1].id}/confirm?token=${made[1].tokenToConfirm}`)).status,
    200,
  );
  const moved = await o.api.post(`/api/v1/bookings/${made[2].id}/reschedule`, { date: '2026-03-04', time: '10:00' });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  await o.api.post(`/api/v1/bookings/${made[3].id}/cancel`, {});
  const ids = [...made.map((m) => m.id), moved.body.data.id];
  const link = (id: string) => {
    const m = made.find((x) => x.id === id);
    return m ? `${svc.config.publicBaseUrl}/api/v1/bookings/${id}/confirm?token=${m.tokenToConfirm}` : undefined;
  };

  const v2s = new Map<string, any>();
  for (const id of ids) {
    const v2 = (await o.api.get(`/api/v2/bookings/${id}`)).body;
    v2s.set(id, v2);
    const v1 = await o.api.get(`/api/v1/bookings/${id}`);
    t.is(v1.status, 200);
    // The link stays while the booking keeps its token (the rescheduled one's new booking got one of its own).
    const url = v1.body.confirmationUrl === null ? null : (link(id) ?? v1.body.confirmationUrl);
    t.is(JSON.stringify(v1.body), JSON.stringify(v1DetailOf(v2, 'dr-p1', url)), `${id} ${v2.status}`);
  }
  t.is((await o.api.get(`/api/v1/bookings/${made[0].id}`)).body.confirmationUrl, link(made[0].id));

  // Newest first, page by page; the total counts the filter's bookings.
  const newest = [...ids].sort((a, b) => v2s.get(b).createdAt.localeCompare(v2s.get(a).createdAt) || (b < a ? -1 : 1));
  for (const [qs, page, limit, expected] of [
    ['', 1, 20, newest],
    ['?page=2&limit=2', 2, 2, newest.slice(2, 4)],
    ['?page=3&limit=2', 3, 2, newest.slice(4)],
    ['?page=9&limit=2', 9, 2, []],
  ] as const) {
    const r = await o.api.get(`/api/v1/bookings${qs}`);
    t.is(r.status, 200);
    t.is(
      JSON.stringify(r.body),
      JSON.stringify({ bookings: expected.map((id) => v1ItemOf(v2s.get(id))), total: ids.length, page, limit }),
      qs,
    );
  }
  const cancelled = await o.api.get('/api/v1/bookings?status=cancelled&limit=1');
  t.is(
    JSON.stringify(cancelled.body),
    JSON.stringify({ bookings: [v1ItemOf(v2s.get(made[3].id))], total: 1, page: 1, limit: 1 }),
  );
});
