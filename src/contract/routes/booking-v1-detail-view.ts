import type { GetBookingResponse } from '../../gen/scheduling/v1/booking_service.js';
import type { RestForm } from '../rest-form.js';
import { BookingV1Detail } from '../schemas/booking.js';
import { objectToRest } from '../typed-message.js';

/**
 * GET /api/v1/bookings/:id on GetBooking: the request is the same (`id`); the answer's booking in the v1 detail shape
 * (`customer` shows as `attendee`, the provider's `displayName` as `name`, the service's as `title`).
 */
export const bookingV1DetailView: RestForm = {
  request: (input, own) => own(input),
  response(response) {
    const b = (response as GetBookingResponse).booking;
    if (b === undefined) return null;
    // The v1 detail message's fields as typed-message.ts reads them: the REST JSON is made by the v1 schema.
    return objectToRest(BookingV1Detail, 'output', {
      bookingId: b.id,
      bookingStatus: b.bookingStatus,
      provider: { id: b.provider?.id, name: b.provider?.displayName, username: b.provider?.username },
      service: { title: b.service?.displayName, duration: b.service?.durationMinutes },
      attendee: { name: b.customer?.name, email: b.customer?.email },
      start: b.slot?.start,
      end: b.slot?.end,
      confirmationUrl: b.confirmationUrl,
      rescheduledFrom: b.rescheduledFrom,
      rescheduledTo: b.rescheduledTo,
    });
  },
};
