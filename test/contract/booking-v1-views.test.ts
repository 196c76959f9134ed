import test from 'ava';
import type { ServiceError } from '../../src/errors/service-error.js';
import { bookingRoutes } from '../../src/contract/routes/booking-routes.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { restJsonOf } from '../../src/gateway/rest-json-of.js';
import { BookingStatus, type BookingV2 } from '../../src/gen/scheduling/v1/resources.js';
import { v1Booking } from '../helpers/v1-booking.js';

/**
 * The v1 booking reads on the v2 RPCs (RouteSpec.restForm, read through the gateway's requestMessageOf): GET /api/v1/bookings/:id renders GetBooking's booking and
 * GET /api/v1/bookings pages ListBookings by number; the v1 JSON is what the v1 RPCs answered (members, order, nulls).
 */

const route = (path: string) => bookingRoutes.find((r) => r.method === 'GET' && r.path === path)!;
const v1Detail = route('/api/v1/bookings/:id');
const v1List = route('/api/v1/bookings');
const query = (q: Record<string, string>) => requestMessageOf(v1List, { params: {}, query: q, body: undefined });

const booking: BookingV2 = { ...v1Booking, rescheduledFrom: 'bkg_0' };

test('GET /api/v1/bookings/:id is GetBooking with the same id, its booking in the v1 detail shape', (t) => {
  const asked = requestMessageOf(v1Detail, { params: { id: 'bkg_1' }, query: {}, body: undefined });
  t.deepEqual(asked, { id: 'bkg_1' });
  // Compared as text: the members in the v1 order, unset ones as null.
  t.is(
    restJsonOf(v1Detail, { booking }, asked),
    JSON.stringify({
      bookingId: 'bkg_1',
      status: 'pending',
      provider: { id: 'prv_1', name: 'Dr. Ada', username: 'ada' },
      service: { title: 'Intake', duration: 60 },
      attendee: { name: 'Pat Doe', email: 'pat@example.com' },
      start: '2026-03-03T14:00:00.000Z',
      end: '2026-03-03T15:00:00.000Z',
      confirmationUrl: 'https://example.test/api/v1/bookings/bkg_1/confirm?token=t',
      rescheduledFrom: 'bkg_0',
      rescheduledTo: null,
    }),
  );
  const bare = { ...booking, provider: { id: 'prv_1', displayName: 'Dr. Ada' }, confirmationUrl: undefined };
  t.like(JSON.parse(restJsonOf(v1Detail, { booking: bare }, asked)), {
    provider: { username: null },
    confirmationUrl: null,
  });
});

test('GET /api/v1/bookings is ListBookings paged by skip: page p of n is skip (p - 1) x n, with the total', (t) => {
  t.deepEqual(query({}), {
    pageSize: 20,
    skip: 0,
    includeTotal: true,
  });
  t.like(query({ page: '3', limit: '10', status: 'cancelled' }), {
    bookingStatus: BookingStatus.BOOKING_STATUS_CANCELLED,
    pageSize: 10,
    skip: 20,
  });
  const asked = query({ page: '2', limit: '1' });
  t.is(
    restJsonOf(v1List, { data: [booking], hasMore: true, nextPageToken: 'x', total: 7 }, asked),
    JSON.stringify({
      bookings: [
        {
          bookingId: 'bkg_1',
          status: 'pending',
          provider: { name: 'Dr. Ada' },
          start: '2026-03-03T14:00:00.000Z',
          end: '2026-03-03T15:00:00.000Z',
        },
      ],
      total: 7,
      page: 2,
      limit: 1,
    }),
  );
  t.is(
    restJsonOf(v1List, { data: [], hasMore: false, total: 0 }, query({})),
    '{"bookings":[],"total":0,"page":1,"limit":20}',
  );
});

test('the v1 bounds of page and limit are refused by the view in the words of their rules', (t) => {
  const refusal = (q: Record<string, string>) => {
    const err = t.throws<ServiceError>(() => query(q));
    return { code: err!.code, field: err!.field, details: err!.details?.map((d) => d.field) };
  };
  t.deepEqual(refusal({ page: '0' }), { code: 'VALIDATION_ERROR', field: 'page', details: ['page'] });
  t.deepEqual(refusal({ limit: '101' }), { code: 'VALIDATION_ERROR', field: 'limit', details: ['limit'] });
  t.deepEqual(refusal({ page: '1000001', limit: '0' }), {
    code: 'VALIDATION_ERROR',
    field: 'page',
    details: ['page', 'limit'],
  });
  t.notThrows(() => query({ page: '1000000', limit: '100' }));
});
