import { assertEvent, assign, setup } from 'xstate';

/** The version of the waitlist entry machine; bump it (and add a migration) when persisted snapshots change shape. */
export const WAITLIST_ENTRY_MACHINE_VERSION = 1;

/** An offer made to a waitlist entry: a resolution and a hold on the freed slot, both ending at `expiresAt`. */
export interface WaitlistOffer {
  resolutionId: string;
  holdId: string;
  optionId: string;
  providerId: string;
  /** ISO start of the offered slot. */
  slotStart: string;
  /** ISO end of the offer (the hold's and the resolution's expiry). */
  expiresAt: string;
}

/** A slot an entry let lapse: it is not offered to that entry again. */
export interface LapsedSlot {
  providerId: string;
  slotStart: string;
}

/** What a waitlist entry actor starts from. */
export interface WaitlistEntryInput {
  entryId: string;
  organizationId: string;
  serviceId: string;
  mode: 'live' | 'test';
  /** ISO timestamp the entry was created. */
  at: string;
}

/** The data a waitlist entry actor keeps (also the `doc` fields of its row that the machine decides). */
export interface WaitlistEntryContext {
  entryId: string;
  organizationId: string;
  serviceId: string;
  mode: 'live' | 'test';
  createdAt: string;
  /** The current offer; kept once booked, null while waiting. */
  offer: WaitlistOffer | null;
  offersMade: number;
  lapsedSlots: LapsedSlot[];
  bookingId: string | null;
  bookedAt: string | null;
  cancelledAt: string | null;
}

/** Events a waitlist entry actor accepts; every one carries the time it happened (`at`, ISO). */
export type WaitlistEntryEvent =
  | { type: 'OFFER'; offer: WaitlistOffer; at: string }
  | { type: 'LAPSE'; at: string }
  | { type: 'BOOK'; resolutionId: string; bookingId: string; at: string }
  | { type: 'CANCEL'; at: string };

/** The states a waitlist entry row is stored in. */
export type WaitlistEntryState = 'waiting' | 'offered' | 'booked' | 'cancelled';

/** How many lapsed slots an entry remembers (the oldest are forgotten first). */
export const LAPSED_SLOTS_KEPT = 50;

const ms = (iso: string): number => Date.parse(iso);

/** Whether an offer ending at `expiresAt` has lapsed at `at` (ISO instants): the LAPSE guard, for every path. */
export function offerHasLapsed(expiresAt: string, at: string): boolean {
  return ms(at) >= ms(expiresAt);
}

/**
 * The waitlist entry lifecycle (CONTRACT part 8, "Waitlist offers").
 *
 * | From            | Event  | Guard                                | To        | Also |
 * |-----------------|--------|--------------------------------------|-----------|------|
 * | (start)         |        |                                      | waiting   | |
 * | waiting         | OFFER  |                                      | offered   | offer, offersMade + 1 |
 * | offered         | LAPSE  | at >= offer.expiresAt                | waiting   | offer = null, the slot joins lapsedSlots |
 * | offered         | BOOK   | resolutionId is the offer's          | booked    | bookingId, bookedAt = at |
 * | waiting/offered | CANCEL |                                      | cancelled | cancelledAt = at |
 *
 * An entry holds one offer at most: OFFER is accepted only while waiting. A lapsed offer's slot is remembered so the
 * slot freed by that lapse goes to the next entry, never back to this one. Booked and cancelled are final. A late or
 * repeated LAPSE (its durable timer, the overdue sweep) is harmless: the guard re-checks time, and an entry no longer
 * offered ignores it.
 */
export const waitlistEntryMachine = setup({
  types: {
    context: {} as WaitlistEntryContext,
    events: {} as WaitlistEntryEvent,
    input: {} as WaitlistEntryInput,
  },
  guards: {
    hasLapsed: ({ context, event }) => context.offer !== null && offerHasLapsed(context.offer.expiresAt, event.at),
    isOfferedResolution: ({ context, event }) => {
      assertEvent(event, 'BOOK');
      return context.offer?.resolutionId === event.resolutionId;
    },
  },
  actions: {
    recordOffer: assign(({ context, event }) => {
      assertEvent(event, 'OFFER');
      return { offer: event.offer, offersMade: context.offersMade + 1 };
    }),
    recordLapse: assign(({ context }) => ({
      offer: null,
      lapsedSlots: [
        ...context.lapsedSlots,
        { providerId: context.offer!.providerId, slotStart: context.offer!.slotStart },
      ].slice(-LAPSED_SLOTS_KEPT),
    })),
    recordBooking: assign(({ event }) => {
      assertEvent(event, 'BOOK');
      return { bookingId: event.bookingId, bookedAt: event.at };
    }),
    recordCancellation: assign(({ event }) => ({ cancelledAt: event.at })),
  },
}).createMachine({
  id: 'waitlist_entry',
  context: ({ input }) => ({
    entryId: input.entryId,
    organizationId: input.organizationId,
    serviceId: input.serviceId,
    mode: input.mode,
    createdAt: input.at,
    offer: null,
    offersMade: 0,
    lapsedSlots: [],
    bookingId: null,
    bookedAt: null,
    cancelledAt: null,
  }),
  initial: 'waiting',
  states: {
    waiting: {
      on: {
        OFFER: { target: 'offered', actions: 'recordOffer' },
        CANCEL: { target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    offered: {
      on: {
        LAPSE: { guard: 'hasLapsed', target: 'waiting', actions: 'recordLapse' },
        BOOK: { guard: 'isOfferedResolution', target: 'booked', actions: 'recordBooking' },
        CANCEL: { target: 'cancelled', actions: 'recordCancellation' },
      },
    },
    booked: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
