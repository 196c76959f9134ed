import {
  BookingStatus as BookingStatusMessage,
  BookingV2_Source,
  type BookingV1Cancelled,
  type BookingV1Created,
  type BookingV1Rescheduled,
  type BookingV2,
} from '../../gen/scheduling/v1/resources.js';
import { boundedFreeForm } from '../../contract/fields.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { confirmationUrl } from '../../application/booking/booking-views.js';

type BookingStatus = BookingRow['status'];

/** A booking status as the message names it. */
export const BOOKING_STATUS_MESSAGE: Record<BookingStatus, BookingStatusMessage> = {
  pending: BookingStatusMessage.BOOKING_STATUS_PENDING,
  confirmed: BookingStatusMessage.BOOKING_STATUS_CONFIRMED,
  cancelled: BookingStatusMessage.BOOKING_STATUS_CANCELLED,
  completed: BookingStatusMessage.BOOKING_STATUS_COMPLETED,
  rescheduled: BookingStatusMessage.BOOKING_STATUS_RESCHEDULED,
};

/** The booking status a request's enum value names (undefined for UNSPECIFIED: not given). */
export const BOOKING_STATUS_OF = new Map<BookingStatusMessage, BookingStatus>(
  Object.entries(BOOKING_STATUS_MESSAGE).map(([rest, message]) => [message, rest as BookingStatus]),
);

/** The refusal of a status filter outside the enum, as REST words it. */
export const BOOKING_STATUS_REFUSAL = `Invalid option: expected one of ${Object.keys(BOOKING_STATUS_MESSAGE)
  .map((s) => `"${s}"`)
  .join('|')}`;

/**
 * The `BookingV2` message of a booking row (v1-created bookings show their attendee as `customer`), with its
 * confirmation link (made with `publicBaseUrl`) while it has one.
 */
export function bookingV2Message(b: BookingRow, publicBaseUrl: string): BookingV2 {
  return {
    id: b.id,
    organizationId: b.organization_id,
    resolutionId: b.resolution_id ?? undefined,
    optionId: b.option_id ?? undefined,
    bookingStatus: BOOKING_STATUS_MESSAGE[b.status],
    provider: { id: b.provider_id, displayName: b.provider_name, username: b.provider_username ?? undefined },
    service: { id: b.service_id, displayName: b.service_title, durationMinutes: b.service_duration },
    customer: {
      name: b.customer.name,
      email: b.customer.email,
      timezone: b.customer.timezone ?? undefined,
      lastname: b.customer.lastname ? b.customer.lastname : undefined,
    },
    slot: { start: b.start_at, end: b.end_at, timezone: b.timezone },
    metadata: (boundedFreeForm(b.metadata ?? {}) ?? {}) as Record<string, unknown>,
    source: b.source === 'v1' ? BookingV2_Source.SOURCE_V1 : BookingV2_Source.SOURCE_V2,
    rescheduledFrom: b.rescheduled_from ?? undefined,
    rescheduledTo: b.rescheduled_to ?? undefined,
    cancelledAt: b.cancelled_at ?? undefined,
    createdAt: b.created_at,
    updatedAt: b.updated_at,
    confirmationUrl: confirmationUrl(publicBaseUrl, b) ?? undefined,
  };
}

/**
 * The v1 create answer as the write committed it (toBookingV1Created, also what an Idempotency-Key replays): its
 * `BookingV1Created` message.
 */
export interface BookingV1CreatedView {
  data: {
    id: string;
    status: BookingStatus;
    title: string;
    date: string;
    end_time: string;
    tokenToConfirm?: unknown;
    resolutionId?: unknown;
  };
}

/** The fields a v1 create and a v1 reschedule answer both give of the (new) pending booking. */
function bookingV1PendingFields(d: BookingV1CreatedView['data']) {
  return {
    id: d.id,
    bookingStatus: BOOKING_STATUS_MESSAGE[d.status],
    title: d.title,
    date: new Date(d.date),
    endTime: new Date(d.end_time),
  };
}

/** The `BookingV1Created` message of a committed v1 create answer. */
export function bookingV1CreatedMessage(view: BookingV1CreatedView): BookingV1Created {
  const d = view.data;
  return {
    data: {
      ...bookingV1PendingFields(d),
      tokenToConfirm: typeof d.tokenToConfirm === 'string' ? d.tokenToConfirm : '',
      resolutionId: typeof d.resolutionId === 'string' ? d.resolutionId : undefined,
    },
  };
}

/** The `BookingV1Rescheduled` message of a committed reschedule answer (the new pending booking). */
export function bookingV1RescheduledMessage(view: BookingV1CreatedView): BookingV1Rescheduled {
  return { data: bookingV1PendingFields(view.data) };
}

/** The `BookingV1Cancelled` message of a committed cancellation answer `{bookingId, status, cancelledAt}`. */
export function bookingV1CancelledMessage(view: { bookingId: string; status: string; cancelledAt: string }) {
  const message: BookingV1Cancelled = {
    bookingId: view.bookingId,
    status: view.status,
    cancelledAt: new Date(view.cancelledAt),
  };
  return message;
}
