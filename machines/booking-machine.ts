import { assertEvent, assign, setup } from 'xstate';

/** The version of the booking machine; bump it (and add a migration) when persisted snapshots change shape. */
export const BOOKING_MACHINE_VERSION = 1;

/** What a booking actor starts from: v1 create starts `pending`, v2 confirm starts `confirmed`. */
export interface BookingInput {
  bookingId: string;
  organizationId: string;
  initialStatus: 'pending' | 'confirmed';
  /** ISO timestamps of the booked slot. */
  startsAt: string;
  endsAt: string;
  /** ISO timestamp the booking was created. */
  at: string;
  /** The booking this one replaces, for a reschedule. */
  rescheduledFrom?: string;
}

/** The data a booking actor keeps. */
export interface BookingContext {
  bookingId: string;
  organizationId: string;
  initialStatus: 'pending' | 'confirmed';
  startsAt: string;
  endsAt: string;
  createdAt: string;
  updatedAt: string;
  confirmedAt: string | null;
  cancelledAt: string | null;
  cancellationReason: string | null;
  rescheduledAt: string | null;
  rescheduledTo: string | null;
  rescheduledFrom: string | null;
  completedAt: string | null;
}

/** Events a booking actor accepts; every one carries the time it happened (`at`, ISO). */
export type BookingEvent =
  | { type: 'CONFIRM'; at: string }
  | { type: 'CANCEL'; at: string; reason?: string }
  | { type: 'RESCHEDULE'; at: string; rescheduledTo: string }
  | { type: 'COMPLETE'; at: string };

const ms = (iso: string): number => Date.parse(iso);

/** The states a booking row is stored in: every state of the machine but the transient `created`. */
export type BookingStatus = 'pending' | 'confirmed' | 'cancelled' | 'rescheduled' | 'completed';

/** Whether a booking ending at `endsAt` has ended at `at` (ISO instants): the COMPLETE guard, for every path. */
export function bookingHasEnded(endsAt: string, at: string): boolean {
  return ms(at) >= ms(endsAt);
}

/**
 * The booking lifecycle (SPEC part 3 with CONTRACT part 5's decisions).
 *
 * | From              | Event      | Guard        | To          | Also |
 * |-------------------|------------|--------------|-------------|------|
 * | (start)           |            | v1 create    | pending     | |
 * | (start)           |            | v2 confirm   | confirmed   | confirmedAt = createdAt |
 * | pending           | CONFIRM    |              | confirmed   | confirmedAt = at |
 * | pending/confirmed | CANCEL     |              | cancelled   | cancelledAt = at, cancellationReason |
 * | pending/confirmed | RESCHEDULE |              | rescheduled | rescheduledTo (the new pending booking) |
 * | confirmed         | COMPLETE   | at >= endsAt | completed   | completedAt = endsAt |
 *
 * Cancelled, rescheduled and completed are final. Events a state does not accept change nothing; the caller
 * compares states to answer (a CONFIRM on a confirmed booking is the idempotent "still 200"; a CANCEL on a
 * final booking is 409 BOOKING_STATE_CONFLICT). A late or repeated COMPLETE timer is harmless.
 */
export const bookingMachine = setup({
  types: {
    context: {} as BookingContext,
    events: {} as BookingEvent,
    input: {} as BookingInput,
  },
  guards: {
    startsConfirmed: ({ context }) => context.initialStatus === 'confirmed',
    hasEnded: ({ context, event }) => bookingHasEnded(context.endsAt, event.at),
  },
  actions: {
    recordConfirmation: assign(({ event }) => ({ confirmedAt: event.at, updatedAt: event.at })),
    recordCancellation: assign(({ event }) => {
      assertEvent(event, 'CANCEL');
      return { cancelledAt: event.at, cancellationReason: event.reason ?? null, updatedAt: event.at };
    }),
    recordReschedule: assign(({ event }) => {
      assertEvent(event, 'RESCHEDULE');
      return { rescheduledAt: event.at, rescheduledTo: event.rescheduledTo, updatedAt: event.at };
    }),
    recordCompletion: assign(({ context, event }) => ({ completedAt: context.endsAt, updatedAt: event.at })),
  },
}).createMachine({
  id: 'booking',
  context: ({ input }) => ({
    bookingId: input.bookingId,
    organizationId: input.organizationId,
    initialStatus: input.initialStatus,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    createdAt: input.at,
    updatedAt: input.at,
    confirmedAt: input.initialStatus === 'confirmed' ? input.at : null,
    cancelledAt: null,
    cancellationReason: null,
    rescheduledAt: null,
    rescheduledTo: null,
    rescheduledFrom: input.rescheduledFrom ?? null,
    completedAt: null,
  }),
  initial: 'created',
  states: {
    created: {
      always: [{ guard: 'startsConfirmed', target: 'confirmed' }, { target: 'pending' }],
    },
    pending: {
      on: {
        CONFIRM: { target: 'confirmed', actions: 'recordConfirmation' },
        CANCEL: { target: 'cancelled', actions: 'recordCancellation' },
        RESCHEDULE: { target: 'rescheduled', actions: 'recordReschedule' },
      },
    },
    confirmed: {
      on: {
        CANCEL: { target: 'cancelled', actions: 'recordCancellation' },
        RESCHEDULE: { target: 'rescheduled', actions: 'recordReschedule' },
        COMPLETE: { guard: 'hasEnded', target: 'completed', actions: 'recordCompletion' },
      },
    },
    cancelled: { type: 'final' },
    rescheduled: { type: 'final' },
    completed: { type: 'final' },
  },
});
