import type {
  BookSlotResponse,
  CancelBookingResponse,
  ConfirmBookingResponse,
  ListSlotsResponse,
  RescheduleBookingResponse,
} from '../../gen/scheduling/v1/booking_service.js';
import type { BookingV2 } from '../../gen/scheduling/v1/resources.js';
import type { RestForm } from '../rest-form.js';
import {
  BookingV1Cancelled,
  BookingV1ConfirmResult,
  BookingV1Created,
  BookingV1Rescheduled,
  SlotsV1Page,
} from '../schemas/booking.js';
import { objectToRest } from '../typed-message.js';
import { v1BookingTitle } from '../v1-booking-title.js';

// Each form takes the route's REST input as its RPC's request (no `request` mapping) and renders the RPC's typed
// answer, the booking resource, as the v1 JSON: the fields as typed-message.ts reads them, the JSON made by the v1
// schema.

/** The fields the v1 create and reschedule answers show of a booking: `{id, status, title, date, end_time}`. */
function v1BookingData(b: BookingV2) {
  return {
    id: b.id,
    bookingStatus: b.bookingStatus,
    title: v1BookingTitle(b.service?.displayName ?? '', b.provider?.displayName ?? ''),
    date: b.slot?.start,
    endTime: b.slot?.end,
  };
}

/** GET /api/v1/slots on ListSlots: `{slots, total}`, `total` the number of slots listed. */
export const slotsV1Form: RestForm = {
  response(response) {
    const slots = (response as ListSlotsResponse).slots ?? [];
    return objectToRest(SlotsV1Page, 'output', { slots, total: slots.length });
  },
};

/** POST /api/v1/bookings on BookSlot: `{data: {id, status, title, date, end_time, tokenToConfirm, resolutionId}}`. */
export const bookingV1CreatedForm: RestForm = {
  response(response) {
    const r = response as BookSlotResponse;
    if (r.booking === undefined) return null;
    const data = {
      ...v1BookingData(r.booking),
      tokenToConfirm: r.confirmationToken,
      resolutionId: r.booking.resolutionId,
    };
    return objectToRest(BookingV1Created, 'output', { data });
  },
};

/** GET /api/v1/bookings/:id/confirm on ConfirmBooking, JSON asked: `{bookingId, status}` (a page is sent as it is). */
export const bookingV1ConfirmForm: RestForm = {
  response(response) {
    const { bookingId, bookingStatus } = response as ConfirmBookingResponse;
    if (!bookingId) return null;
    return objectToRest(BookingV1ConfirmResult, 'output', { bookingId, bookingStatus });
  },
};

/** POST /api/v1/bookings/:id/reschedule on RescheduleBooking: the new booking as `{data: {id, status, title, date, end_time}}`. */
export const bookingV1RescheduledForm: RestForm = {
  response(response) {
    const b = (response as RescheduleBookingResponse).booking;
    if (b === undefined) return null;
    return objectToRest(BookingV1Rescheduled, 'output', { data: v1BookingData(b) });
  },
};

/** POST /api/v1/bookings/:id/cancel on CancelBooking: bare `{bookingId, status: 'cancelled', cancelledAt}`. */
export const bookingV1CancelledForm: RestForm = {
  response(response) {
    const b = (response as CancelBookingResponse).booking;
    if (b === undefined) return null;
    return objectToRest(BookingV1Cancelled, 'output', {
      bookingId: b.id,
      status: 'cancelled',
      cancelledAt: b.cancelledAt,
    });
  },
};
