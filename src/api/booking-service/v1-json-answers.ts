import type {
  BookSlotResponse,
  CancelBookingResponse,
  RescheduleBookingResponse,
} from '../../gen/scheduling/v1/booking_service.js';
import {
  BookingStatus as BookingStatusMessage,
  BookingV2_Source,
  type BookingV2,
} from '../../gen/scheduling/v1/resources.js';
import { BOOKING_STATUS_MESSAGE } from '../messages/booking-message.js';

// Answers the direct path's writes stored under an `idempotency-key` before they answered the booking resource: the
// v1 REST JSON they answered then (kept 24 hours). A replay of one answers the booking it holds, no more (the fields
// the v1 JSON showed; the rest unset), so the v1 JSON rendered of it is the stored one, byte for byte.

/** A stored v1 answer, as read back. */
type V1Json = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const statusOf = (v: unknown) =>
  BOOKING_STATUS_MESSAGE[v as keyof typeof BOOKING_STATUS_MESSAGE] ?? BookingStatusMessage.BOOKING_STATUS_UNSPECIFIED;

/** The booking of a v1 create or reschedule answer's `data`: `{id, status, title, date, end_time}`. */
function bookingOfV1Data(data: unknown, organizationId: string): BookingV2 {
  const d = (data ?? {}) as V1Json;
  const title = text(d.title);
  // The title was `<service> with <provider>` (v1BookingTitle): cut at its first ` with `, it joins back to the same
  // text (a service title holding ` with ` itself is cut inside it; the v1 JSON is the same).
  const cut = title.indexOf(' with ');
  return {
    id: text(d.id),
    organizationId,
    bookingStatus: statusOf(d.status),
    provider: { id: '', displayName: cut < 0 ? '' : title.slice(cut + ' with '.length) },
    service: { id: '', displayName: cut < 0 ? title : title.slice(0, cut), durationMinutes: 0 },
    slot: { start: new Date(text(d.date)), end: new Date(text(d.end_time)), timezone: '' },
    source: BookingV2_Source.SOURCE_V1,
  };
}

/** BookSlot's answer of a stored `{data: {id, status, title, date, end_time, tokenToConfirm, resolutionId}}`. */
export function bookSlotResponseOfV1Json(json: V1Json, organizationId: string): BookSlotResponse {
  const d = (json.data ?? {}) as V1Json;
  const booking = bookingOfV1Data(d, organizationId);
  if (typeof d.resolutionId === 'string') booking.resolutionId = d.resolutionId;
  return { booking, confirmationToken: text(d.tokenToConfirm) };
}

/** RescheduleBooking's answer of a stored `{data: {id, status, title, date, end_time}}` (the new booking). */
export function rescheduleBookingResponseOfV1Json(json: V1Json, organizationId: string): RescheduleBookingResponse {
  return { booking: bookingOfV1Data(json.data, organizationId) };
}

/** CancelBooking's answer of a stored `{bookingId, status, cancelledAt}`. */
export function cancelBookingResponseOfV1Json(json: V1Json, organizationId: string): CancelBookingResponse {
  return {
    booking: {
      id: text(json.bookingId),
      organizationId,
      bookingStatus: statusOf(json.status),
      cancelledAt: new Date(text(json.cancelledAt)),
      source: BookingV2_Source.SOURCE_V1,
    },
  };
}
