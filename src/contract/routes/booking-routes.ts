import { listOf } from '../schemas/list-envelope.js';
import {
  BookingPath,
  BookingsV1Page,
  BookingV1Cancelled,
  BookingV1ConfirmResult,
  BookingV1Created,
  BookingV1Detail,
  BookingV1Rescheduled,
  BookingV2,
  CancelBookingV1Body,
  ConfirmBookingV1Query,
  CreateBookingV1Body,
  ListBookingsQuery,
  ListBookingsV1Query,
  ListSlotsV1Query,
  RescheduleBookingV1Body,
  SlotsV1Page,
} from '../schemas/booking.js';
import type { RouteSpec } from '../route.js';
import { idempotencyHeader } from './idempotency-header.js';
import { bookingV1DetailView } from './booking-v1-detail-view.js';
import { bookingsV1PageView } from './bookings-v1-page-view.js';
import {
  bookingV1CancelledForm,
  bookingV1ConfirmForm,
  bookingV1CreatedForm,
  bookingV1RescheduledForm,
  slotsV1Form,
} from './v1-direct-path-forms.js';

/**
 * Booking routes: v2 reads and the v1 direct path (SPEC 4.4, CONTRACT part 5). The v1 reads map onto the v2 reads'
 * RPCs (GetBooking, ListBookings) through a view of their own; the v1 writes have RPCs named for what they do, which
 * answer the booking resource (and the slots), rendered as the v1 JSON by their REST forms (v1-direct-path-forms.ts).
 */
export const bookingRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/bookings',
    service: 'BookingService',
    rpc: 'ListBookings',
    tag: 'bookings',
    summary: "List the organization's bookings (v1 and v2), newest first; filters `status`, `providerId`.",
    description: "Lists the organization's bookings with cursor pagination.",
    query: ListBookingsQuery,
    response: listOf(BookingV2),
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/bookings/:id',
    service: 'BookingService',
    rpc: 'GetBooking',
    tag: 'bookings',
    summary: 'Read a booking (v1-created bookings show their attendee as `customer`).',
    description: 'Answers one booking of the organization in the v2 shape.',
    params: BookingPath,
    response: BookingV2,
    errors: ['BOOKING_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v1/slots',
    service: 'BookingService',
    rpc: 'ListSlots',
    operationId: 'listSlotsV1',
    restForm: slotsV1Form,
    tag: 'v1',
    summary:
      "The slots of one local date in the provider's schedule timezone, stepped by the service's slot interval; taken ones (bookings, active holds, buffers included) have `available: false`. Past slots and slots inside the minimum notice are left out.",
    description:
      "Answers the bookable slots of one provider and service on one local date; use a slot's `id` with POST /api/v1/bookings.",
    query: ListSlotsV1Query,
    response: SlotsV1Page,
    errors: ['PROVIDER_NOT_FOUND', 'SERVICE_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/api/v1/bookings',
    service: 'BookingService',
    rpc: 'BookSlot',
    operationId: 'createBookingV1',
    restForm: bookingV1CreatedForm,
    tag: 'v1',
    summary:
      'Book a slot directly: a `pending` booking that holds its slot; the attendee gets an e-mail with the confirmation link (sent for live keys when SMTP is configured, else only stored). Exactly one of concurrent requests for a slot succeeds.',
    description:
      'Creates a pending booking on a slot id from GET /api/v1/slots and answers its confirmation token; the slot must be free and inside availability. Idempotency-Key is optional: a retry with the same key and body answers the first booking (kept with the booking).',
    headers: [idempotencyHeader(false)],
    body: CreateBookingV1Body,
    response: BookingV1Created,
    errors: [
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_REQUEST_IN_PROGRESS',
      'PROVIDER_NOT_FOUND',
      'SERVICE_NOT_FOUND',
      'SLOT_OUTSIDE_AVAILABILITY',
      'SLOT_UNAVAILABLE',
    ],
  },
  {
    method: 'GET',
    path: '/api/v1/bookings',
    service: 'BookingService',
    rpc: 'ListBookings',
    operationId: 'listBookingsV1',
    restForm: bookingsV1PageView,
    tag: 'v1',
    summary:
      'List bookings (v1 and v2) newest first, paged by `page` and `limit` (default 20, at most 100), filtered by any booking `status`.',
    description: "The v1 page of the organization's bookings.",
    query: ListBookingsV1Query,
    response: BookingsV1Page,
  },
  {
    method: 'GET',
    path: '/api/v1/bookings/:id',
    service: 'BookingService',
    rpc: 'GetBooking',
    operationId: 'getBookingV1',
    restForm: bookingV1DetailView,
    tag: 'v1',
    summary: 'Read a booking in the v1 detail shape (v2 `customer` shows as `attendee`).',
    description: 'Answers one booking of the organization in the v1 shape.',
    params: BookingPath,
    response: BookingV1Detail,
    errors: ['BOOKING_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v1/bookings/:id/confirm',
    service: 'BookingService',
    rpc: 'ConfirmBooking',
    operationId: 'confirmBookingV1',
    restForm: bookingV1ConfirmForm,
    tag: 'v1',
    auth: 'none',
    htmlAnswer: true,
    summary:
      'The e-mailed confirmation link (no Authorization: the token is the credential). Confirms a pending booking and answers a small HTML page, or `{bookingId, status}` with `Accept: application/json`. Following it again is still 200; a wrong token is 404; a cancelled or rescheduled booking is 409.',
    description:
      'Confirms the pending booking named by the link; the token from the e-mail or the create answer is the credential.',
    params: BookingPath,
    query: ConfirmBookingV1Query,
    response: BookingV1ConfirmResult,
    errors: ['BOOKING_NOT_FOUND', 'BOOKING_STATE_CONFLICT'],
  },
  {
    method: 'POST',
    path: '/api/v1/bookings/:id/reschedule',
    service: 'BookingService',
    rpc: 'RescheduleBooking',
    operationId: 'rescheduleBookingV1',
    restForm: bookingV1RescheduledForm,
    tag: 'v1',
    summary:
      "Move a pending or confirmed booking to local `date` + `time` in the provider's timezone: the original becomes `rescheduled` and a new `pending` booking (same provider, service, attendee) takes the new slot. A combined `datetime`/`start` is 422.",
    description:
      'Moves a booking to a new local date and time; answers the new pending booking. Idempotency-Key is optional: a retry with the same key and body answers the first new booking (kept with it).',
    headers: [idempotencyHeader(false)],
    params: BookingPath,
    body: RescheduleBookingV1Body,
    response: BookingV1Rescheduled,
    errors: [
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_REQUEST_IN_PROGRESS',
      'BOOKING_NOT_FOUND',
      'BOOKING_STATE_CONFLICT',
      'COMBINED_DATETIME_NOT_ACCEPTED',
      'SLOT_OUTSIDE_AVAILABILITY',
      'SLOT_UNAVAILABLE',
    ],
  },
  {
    method: 'POST',
    path: '/api/v1/bookings/:id/cancel',
    service: 'BookingService',
    rpc: 'CancelBooking',
    operationId: 'cancelBookingV1',
    restForm: bookingV1CancelledForm,
    tag: 'v1',
    bodyOptional: true,
    summary:
      'Cancel a pending or confirmed booking (frees its slot, emits booking.cancelled, e-mails a notice); answers bare `{bookingId, status, cancelledAt}`.',
    description:
      'Cancels the booking; the body and its `reason` are optional. Idempotency-Key is optional: a retry with the same key and body answers the first cancellation (kept with it) instead of 409.',
    headers: [idempotencyHeader(false)],
    params: BookingPath,
    body: CancelBookingV1Body,
    response: BookingV1Cancelled,
    errors: [
      'IDEMPOTENCY_KEY_REUSED',
      'IDEMPOTENCY_REQUEST_IN_PROGRESS',
      'BOOKING_NOT_FOUND',
      'BOOKING_STATE_CONFLICT',
    ],
  },
];
