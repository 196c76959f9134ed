import { boundedFreeForm } from '../../contract/fields.js';
import { v1BookingTitle } from '../../contract/v1-booking-title.js';
import type { BookingRow } from '../../persistence/booking-repository.js';

/** The v2 Booking shape (SPEC part 2); v1-created bookings show their attendee as `customer`. */
export function toBookingV2(b: BookingRow) {
  return {
    id: b.id,
    organizationId: b.organization_id,
    resolutionId: b.resolution_id,
    optionId: b.option_id,
    status: b.status,
    provider: { id: b.provider_id, displayName: b.provider_name },
    service: { id: b.service_id, displayName: b.service_title, durationMinutes: b.service_duration },
    customer: {
      name: b.customer.name,
      email: b.customer.email,
      timezone: b.customer.timezone ?? null,
      ...(b.customer.lastname ? { lastname: b.customer.lastname } : {}),
    },
    slot: { start: b.start_at.toISOString(), end: b.end_at.toISOString(), timezone: b.timezone },
    metadata: (boundedFreeForm(b.metadata ?? {}) ?? {}) as Record<string, unknown>,
    source: b.source,
    rescheduledFrom: b.rescheduled_from,
    rescheduledTo: b.rescheduled_to,
    cancelledAt: b.cancelled_at?.toISOString() ?? null,
    createdAt: b.created_at.toISOString(),
    updatedAt: b.updated_at.toISOString(),
  };
}

/** `<service title> with <provider displayName>` (CONTRACT part 5). */
export function bookingTitle(b: Pick<BookingRow, 'service_title' | 'provider_name'>): string {
  return v1BookingTitle(b.service_title, b.provider_name);
}

/** The confirmation link of a pending booking. */
export function confirmationUrl(publicBaseUrl: string, b: Pick<BookingRow, 'id' | 'confirm_token'>): string | null {
  return b.confirm_token ? `${publicBaseUrl}/api/v1/bookings/${b.id}/confirm?token=${b.confirm_token}` : null;
}
