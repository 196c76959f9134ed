import test from 'ava';
import { bookingRoutes } from '../../src/contract/routes/booking-routes.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { restJsonOf } from '../../src/gateway/rest-json-of.js';
import {
  BookSlotResponse,
  CancelBookingResponse,
  ConfirmBookingResponse,
  ListSlotsResponse,
  RescheduleBookingResponse,
} from '../../src/gen/scheduling/v1/booking_service.js';
import { BookingStatus } from '../../src/gen/scheduling/v1/resources.js';
import { v1Booking } from '../helpers/v1-booking.js';

/**
 * The v1 direct path's RPCs answer the booking resource (and ListSlots its slots); their routes' REST forms
 * (v1-direct-path-forms.ts) render the v1 JSON of those answers, compared as text: the members in the v1 order, nulls
 * where v1 answered null. The answers go through their binary encoding first, as over gRPC.
 */

const route = (method: string, path: string) => bookingRoutes.find((r) => r.method === method && r.path === path)!;

/** The v1 JSON text of a typed answer sent through its binary encoding. */
function rendered<T>(
  type: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T },
  r: ReturnType<typeof route>,
  message: T,
) {
  return restJsonOf(r, type.decode(type.encode(message).finish()) as Record<string, unknown>);
}

const booking = v1Booking;

test('the v1 direct path routes take their REST input as their RPC request, mapped by their own schemas', (t) => {
  const create = route('POST', '/api/v1/bookings');
  const attendee = { name: 'Pat', email: 'pat@example.com' };
  t.deepEqual(
    requestMessageOf(create, {
      params: {},
      query: {},
      body: { providerId: 'prv_1', serviceId: 'svc_1', slotId: 's', attendee, extra: 1 },
    }),
    { providerId: 'prv_1', serviceId: 'svc_1', slotId: 's', attendee },
  );
  t.deepEqual(
    requestMessageOf(route('GET', '/api/v1/slots'), {
      params: {},
      query: { providerId: 'prv_1', eventTypeId: 'svc_1', date: '2026-03-03' },
      body: undefined,
    }),
    { providerId: 'prv_1', eventTypeId: 'svc_1', date: '2026-03-03' },
  );
  t.deepEqual(
    requestMessageOf(route('POST', '/api/v1/bookings/:id/cancel'), { params: { id: 'bkg_1' }, query: {}, body: {} }),
    { id: 'bkg_1' },
  );
});

test('GET /api/v1/slots renders ListSlots as {slots, total}, total the number of slots', (t) => {
  const slot = { id: 'slt_1', date: '2026-03-03', time: '09:00', label: '9:00 AM', available: true };
  t.is(
    rendered(ListSlotsResponse, route('GET', '/api/v1/slots'), {
      slots: [slot, { ...slot, id: 'slt_2', time: '10:00', label: '10:00 AM', available: false }],
    }),
    JSON.stringify({
      slots: [slot, { id: 'slt_2', date: '2026-03-03', time: '10:00', label: '10:00 AM', available: false }],
      total: 2,
    }),
  );
  t.is(rendered(ListSlotsResponse, route('GET', '/api/v1/slots'), { slots: [] }), '{"slots":[],"total":0}');
});

test('POST /api/v1/bookings renders BookSlot as {data: {id, status, title, date, end_time, tokenToConfirm, resolutionId}}', (t) => {
  t.is(
    rendered(BookSlotResponse, route('POST', '/api/v1/bookings'), { booking, confirmationToken: 'tok' }),
    JSON.stringify({
      data: {
        id: 'bkg_1',
        status: 'pending',
        title: 'Intake with Dr. Ada',
        date: '2026-03-03T14:00:00.000Z',
        end_time: '2026-03-03T15:00:00.000Z',
        tokenToConfirm: 'tok',
        resolutionId: null,
      },
    }),
  );
});

test('GET /api/v1/bookings/:id/confirm renders the booking id and status as {bookingId, status}', (t) => {
  t.is(
    rendered(ConfirmBookingResponse, route('GET', '/api/v1/bookings/:id/confirm'), {
      bookingId: 'bkg_1',
      bookingStatus: BookingStatus.BOOKING_STATUS_CONFIRMED,
    }),
    '{"bookingId":"bkg_1","status":"confirmed"}',
  );
});

test('POST /api/v1/bookings/:id/reschedule renders the new booking as {data: {id, status, title, date, end_time}}', (t) => {
  t.is(
    rendered(RescheduleBookingResponse, route('POST', '/api/v1/bookings/:id/reschedule'), {
      booking: { ...booking, id: 'bkg_2', rescheduledFrom: 'bkg_1' },
    }),
    JSON.stringify({
      data: {
        id: 'bkg_2',
        status: 'pending',
        title: 'Intake with Dr. Ada',
        date: '2026-03-03T14:00:00.000Z',
        end_time: '2026-03-03T15:00:00.000Z',
      },
    }),
  );
});

test('POST /api/v1/bookings/:id/cancel renders the cancelled booking as bare {bookingId, status, cancelledAt}', (t) => {
  const cancelled = {
    ...booking,
    bookingStatus: BookingStatus.BOOKING_STATUS_CANCELLED,
    cancelledAt: new Date('2026-03-02T13:00:00Z'),
  };
  t.is(
    rendered(CancelBookingResponse, route('POST', '/api/v1/bookings/:id/cancel'), { booking: cancelled }),
    '{"bookingId":"bkg_1","status":"cancelled","cancelledAt":"2026-03-02T13:00:00.000Z"}',
  );
});
