import { and, assertEvent, assign, setup } from 'xstate';

/** The version of the resolution machine; bump it (and add a migration) when persisted snapshots change shape. */
export const RESOLUTION_MACHINE_VERSION = 1;

/** What a resolution actor starts from: its outcome picks the first state. */
export interface ResolutionInput {
  resolutionId: string;
  organizationId: string;
  outcome: 'resolved' | 'zero_results';
  /** ISO timestamp: creation + RESOLUTION_TTL_SECONDS. */
  expiresAt: string;
}

/** The data a resolution actor keeps. */
export interface ResolutionContext {
  resolutionId: string;
  organizationId: string;
  outcome: 'resolved' | 'zero_results';
  /** When the resolution expires; moved to the end of a hold that outlives it. */
  expiresAt: string;
  activeHoldId: string | null;
  bookingId: string | null;
  expiredAt: string | null;
}

/** Events a resolution actor accepts; every one carries the time it happened (`at`, ISO). */
export type ResolutionEvent =
  | { type: 'HOLD_STARTED'; holdId: string; at: string }
  | { type: 'HOLD_ENDED'; holdId: string; at: string }
  | { type: 'CONFIRMED'; bookingId: string; holdId?: string; at: string }
  | { type: 'EXPIRE'; at: string };

const ms = (iso: string): number => Date.parse(iso);
const later = (a: string, b: string): string => (ms(a) >= ms(b) ? a : b);

/**
 * The resolution lifecycle (SPEC part 3, CONTRACT part 4).
 *
 * | From                    | Event        | Guard                                  | To       | Also |
 * |-------------------------|--------------|----------------------------------------|----------|------|
 * | (start)                 |              | outcome resolved                       | resolved | |
 * | (start)                 |              | outcome zero_results                   | zero_results | |
 * | resolved                | HOLD_STARTED | no active hold, not confirmed, at < expiresAt | resolved | activeHoldId = holdId |
 * | resolved                | HOLD_ENDED   | holdId is the active hold              | resolved | activeHoldId = null, expiresAt = max(expiresAt, at) |
 * | resolved                | CONFIRMED    | not confirmed, alive (active hold or at < expiresAt) | resolved | bookingId; ends the hold it used |
 * | resolved, zero_results  | EXPIRE       | no active hold, at >= expiresAt        | expired  | expiredAt = expiresAt |
 *
 * An active hold keeps the resolution alive: EXPIRE is ignored while a hold is active, and when the hold ends
 * the resolution expires at max(expiresAt, hold end), so the runtime schedules EXPIRE again at `expiresAt`.
 * A confirmed resolution stays `resolved` (with `bookingId`) and still expires: reads after expiry answer 410
 * like any other resolution (CONTRACT part 4). A late or repeated EXPIRE is harmless: the guard re-checks time.
 */
export const resolutionMachine = setup({
  types: {
    context: {} as ResolutionContext,
    events: {} as ResolutionEvent,
    input: {} as ResolutionInput,
  },
  guards: {
    hasOptions: ({ context }) => context.outcome === 'resolved',
    hasNoActiveHold: ({ context }) => context.activeHoldId === null,
    isNotConfirmed: ({ context }) => context.bookingId === null,
    isBeforeExpiry: ({ context, event }) => ms(event.at) < ms(context.expiresAt),
    isAlive: ({ context, event }) => context.activeHoldId !== null || ms(event.at) < ms(context.expiresAt),
    endsActiveHold: ({ context, event }) => {
      assertEvent(event, 'HOLD_ENDED');
      return context.activeHoldId === event.holdId;
    },
    isDueForExpiry: ({ context, event }) => context.activeHoldId === null && ms(event.at) >= ms(context.expiresAt),
  },
  actions: {
    recordActiveHold: assign(({ event }) => {
      assertEvent(event, 'HOLD_STARTED');
      return { activeHoldId: event.holdId };
    }),
    endActiveHold: assign(({ context, event }) => {
      assertEvent(event, 'HOLD_ENDED');
      return { activeHoldId: null, expiresAt: later(context.expiresAt, event.at) };
    }),
    recordBooking: assign(({ context, event }) => {
      assertEvent(event, 'CONFIRMED');
      // Confirming with the active hold consumes it, which ends the hold like HOLD_ENDED does.
      const endsHold = event.holdId !== undefined && event.holdId === context.activeHoldId;
      return endsHold
        ? { bookingId: event.bookingId, activeHoldId: null, expiresAt: later(context.expiresAt, event.at) }
        : { bookingId: event.bookingId };
    }),
    recordExpiry: assign(({ context }) => ({ expiredAt: context.expiresAt })),
  },
}).createMachine({
  id: 'resolution',
  context: ({ input }) => ({
    resolutionId: input.resolutionId,
    organizationId: input.organizationId,
    outcome: input.outcome,
    expiresAt: input.expiresAt,
    activeHoldId: null,
    bookingId: null,
    expiredAt: null,
  }),
  initial: 'created',
  states: {
    created: {
      always: [{ guard: 'hasOptions', target: 'resolved' }, { target: 'zero_results' }],
    },
    resolved: {
      on: {
        HOLD_STARTED: {
          guard: and(['hasNoActiveHold', 'isNotConfirmed', 'isBeforeExpiry']),
          actions: 'recordActiveHold',
        },
        HOLD_ENDED: { guard: 'endsActiveHold', actions: 'endActiveHold' },
        CONFIRMED: { guard: and(['isNotConfirmed', 'isAlive']), actions: 'recordBooking' },
        EXPIRE: { guard: 'isDueForExpiry', target: 'expired', actions: 'recordExpiry' },
      },
    },
    zero_results: {
      on: {
        EXPIRE: { guard: 'isDueForExpiry', target: 'expired', actions: 'recordExpiry' },
      },
    },
    expired: { type: 'final' },
  },
});
