import { assertEvent, assign, setup } from 'xstate';

/** The version of the hold machine; bump it (and add a migration) when persisted snapshots change shape. */
export const HOLD_MACHINE_VERSION = 1;

/** What a hold actor starts from. */
export interface HoldInput {
  holdId: string;
  resolutionId: string;
  optionId: string;
  /** ISO timestamp the hold was created. */
  at: string;
  /** ISO timestamp: creation + ttlSeconds (1..600). */
  expiresAt: string;
}

/** The data a hold actor keeps. */
export interface HoldContext {
  holdId: string;
  resolutionId: string;
  optionId: string;
  createdAt: string;
  expiresAt: string;
  releasedAt: string | null;
  expiredAt: string | null;
  consumedAt: string | null;
  bookingId: string | null;
}

/** Events a hold actor accepts; every one carries the time it happened (`at`, ISO). */
export type HoldEvent =
  | { type: 'RELEASE'; at: string }
  | { type: 'CONFIRM'; bookingId: string; at: string }
  | { type: 'EXPIRE'; at: string };

const ms = (t: string | Date): number => (typeof t === 'string' ? Date.parse(t) : t.getTime());

/**
 * Whether a hold expiring at `expiresAt` has lapsed at `at` (ISO instants or Dates): the expiry guard of the machine,
 * and the one every read path uses (a lapsed hold is expired even before its timer fires).
 */
export function holdHasLapsed(expiresAt: string | Date, at: string | Date): boolean {
  return ms(at) >= ms(expiresAt);
}

/**
 * The hold lifecycle (SPEC part 3, CONTRACT part 5).
 *
 * | From   | Event   | Guard            | To       | Also |
 * |--------|---------|------------------|----------|------|
 * | (start)|         |                  | active   | |
 * | active | RELEASE | at >= expiresAt  | expired  | expiredAt = expiresAt |
 * | active | RELEASE |                  | released | releasedAt = at |
 * | active | CONFIRM | at >= expiresAt  | expired  | expiredAt = expiresAt |
 * | active | CONFIRM |                  | consumed | bookingId, consumedAt = at |
 * | active | EXPIRE  | at >= expiresAt  | expired  | expiredAt = expiresAt |
 *
 * A hold whose lifetime has passed is expired even before its timer fires, so RELEASE or CONFIRM after expiresAt
 * lands in `expired` (the caller answers 410 HOLD_EXPIRED). `consumed` means a booking was confirmed with the hold;
 * the slot now belongs to the booking, and the hold can no longer be released. Released, expired and consumed are
 * final: a hold is never reinstated, so a repeated RELEASE or a late EXPIRE changes nothing.
 */
export const holdMachine = setup({
  types: {
    context: {} as HoldContext,
    events: {} as HoldEvent,
    input: {} as HoldInput,
  },
  guards: {
    isPastExpiry: ({ context, event }) => holdHasLapsed(context.expiresAt, event.at),
  },
  actions: {
    recordRelease: assign(({ event }) => ({ releasedAt: event.at })),
    recordExpiry: assign(({ context }) => ({ expiredAt: context.expiresAt })),
    recordConsumption: assign(({ event }) => {
      assertEvent(event, 'CONFIRM');
      return { bookingId: event.bookingId, consumedAt: event.at };
    }),
  },
}).createMachine({
  id: 'hold',
  context: ({ input }) => ({
    holdId: input.holdId,
    resolutionId: input.resolutionId,
    optionId: input.optionId,
    createdAt: input.at,
    expiresAt: input.expiresAt,
    releasedAt: null,
    expiredAt: null,
    consumedAt: null,
    bookingId: null,
  }),
  initial: 'active',
  states: {
    active: {
      on: {
        RELEASE: [
          { guard: 'isPastExpiry', target: 'expired', actions: 'recordExpiry' },
          { target: 'released', actions: 'recordRelease' },
        ],
        CONFIRM: [
          { guard: 'isPastExpiry', target: 'expired', actions: 'recordExpiry' },
          { target: 'consumed', actions: 'recordConsumption' },
        ],
        EXPIRE: { guard: 'isPastExpiry', target: 'expired', actions: 'recordExpiry' },
      },
    },
    released: { type: 'final' },
    expired: { type: 'final' },
    consumed: { type: 'final' },
  },
});
