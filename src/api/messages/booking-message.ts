import {
  BookingStatus as BookingStatusMessage,
  BookingV2_Source,
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
