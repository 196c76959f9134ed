import { getInitialSnapshot, type SnapshotFrom } from 'xstate';
import {
  bookingMachine,
  type BookingContext,
  type BookingEvent,
  type BookingInput,
  type BookingStatus,
} from '../../../machines/booking-machine.js';
import type { Queryable } from '../../persistence/database.js';
import { writeBookingState, type BookingRow } from '../../persistence/booking-repository.js';
import { machineStep } from '../lifecycle/machine-step.js';

const STORED_STATES: readonly string[] = [
  'pending',
  'confirmed',
  'cancelled',
  'rescheduled',
  'completed',
] satisfies BookingStatus[];

/** A state value of the booking machine as a stored status (the transient `created` is never stored). */
export function storedStatus(value: string): BookingStatus {
  if (!STORED_STATES.includes(value)) throw new Error(`booking machine state ${value} is not a stored status`);
  return value as BookingStatus;
}

/** The fields of a booking row the machine's input is made of. */
type BookingStart = Pick<
  BookingRow,
  'id' | 'organization_id' | 'source' | 'start_at' | 'end_at' | 'created_at' | 'rescheduled_from'
>;

/** The booking machine's input for a booking: v1 bookings start `pending`, v2 (confirmed from a resolution) `confirmed`. */
export function bookingInputOf(b: BookingStart): BookingInput {
  return {
    bookingId: b.id,
    organizationId: b.organization_id,
    initialStatus: b.source === 'v2' ? 'confirmed' : 'pending',
    startsAt: b.start_at.toISOString(),
    endsAt: b.end_at.toISOString(),
    at: b.created_at.toISOString(),
    ...(b.rescheduled_from ? { rescheduledFrom: b.rescheduled_from } : {}),
  };
}

/** The state the booking machine starts a new booking in: the status its row is inserted with. */
export function initialBookingStatus(b: BookingStart): BookingStatus {
  return initialBookingState(b).status;
}

/** The status and confirmation instant the booking machine starts a new booking with: what its row is inserted with. */
export function initialBookingState(b: BookingStart): { status: BookingStatus; confirmedAt: Date | null } {
  const snap = getInitialSnapshot(bookingMachine, bookingInputOf(b));
  return {
    status: storedStatus(String(snap.value)),
    confirmedAt: snap.context.confirmedAt ? new Date(snap.context.confirmedAt) : null,
  };
}

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;
const date = (s: string | null): Date | null => (s ? new Date(s) : null);

/** The booking machine's context rebuilt from a ledger row. */
export function bookingContextOf(b: BookingRow): BookingContext {
  return {
    bookingId: b.id,
    organizationId: b.organization_id,
    initialStatus: b.source === 'v2' ? 'confirmed' : 'pending',
    startsAt: b.start_at.toISOString(),
    endsAt: b.end_at.toISOString(),
    createdAt: b.created_at.toISOString(),
    updatedAt: b.updated_at.toISOString(),
    confirmedAt: iso(b.confirmed_at),
    cancelledAt: iso(b.cancelled_at),
    cancellationReason: b.cancel_reason,
    rescheduledAt: iso(b.rescheduled_at),
    rescheduledTo: b.rescheduled_to,
    rescheduledFrom: b.rescheduled_from,
    completedAt: iso(b.completed_at),
  };
}

/** Decides a booking event with the booking machine, from the ledger row's state, without I/O. */
export function bookingStep(b: BookingRow, event: BookingEvent) {
  return machineStep(bookingMachine, b.status, bookingContextOf(b) as unknown as Record<string, unknown>, event);
}

/** The booking machine's state for a ledger row: what the booking's actor holds when it agrees with the row. */
export function bookingSnapshotOf(b: BookingRow): SnapshotFrom<typeof bookingMachine> {
  return bookingMachine.resolveState({ value: storedStatus(b.status), context: bookingContextOf(b) });
}

/**
 * The row's fields after a booking step: the machine's next state value as the status, and the context fields the
 * row keeps (updatedAt, confirmedAt, cancelledAt, cancellationReason, rescheduledAt, rescheduledTo, completedAt).
 */
export async function recordBookingStep(tx: Queryable, id: string, value: string, c: BookingContext) {
  return writeBookingState(tx, id, {
    status: storedStatus(value),
    updatedAt: new Date(c.updatedAt),
    confirmedAt: date(c.confirmedAt),
    cancelledAt: date(c.cancelledAt),
    cancelReason: c.cancellationReason,
    rescheduledAt: date(c.rescheduledAt),
    rescheduledTo: c.rescheduledTo,
    completedAt: date(c.completedAt),
  });
}
