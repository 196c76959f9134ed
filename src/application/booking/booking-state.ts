import { bookingMachine } from '../../../machines/booking-machine.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { machineStep } from './machine-step.js';

/** The booking machine's context rebuilt from a ledger row. */
export function bookingContextOf(b: BookingRow): Record<string, unknown> {
  return {
    bookingId: b.id, organizationId: b.organization_id, initialStatus: b.source === 'v2' ? 'confirmed' : 'pending',
    startsAt: b.start_at.toISOString(), endsAt: b.end_at.toISOString(), createdAt: b.created_at.toISOString(), updatedAt: b.updated_at.toISOString(),
    confirmedAt: null, cancelledAt: b.cancelled_at?.toISOString() ?? null, cancellationReason: b.cancel_reason, rescheduledAt: null,
    rescheduledTo: b.rescheduled_to, rescheduledFrom: b.rescheduled_from, completedAt: null,
  };
}

/** Decides a booking event with the booking machine, from the ledger row's state. */
export function bookingStep(b: BookingRow, event: Parameters<typeof machineStep<typeof bookingMachine>>[3]) {
  return machineStep(bookingMachine, b.status, bookingContextOf(b), event);
}
