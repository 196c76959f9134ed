import { bookingMachine, BOOKING_MACHINE_VERSION } from './booking-machine.js';
import { holdMachine, HOLD_MACHINE_VERSION } from './hold-machine.js';
import { resolutionMachine, RESOLUTION_MACHINE_VERSION } from './resolution-machine.js';
import { waitlistEntryMachine, WAITLIST_ENTRY_MACHINE_VERSION } from './waitlist-entry-machine.js';

/**
 * The actor kinds the runtime stores: name (part of every Redis key), machine and machine version.
 * They fit the actor store's `ActorKind`; when a version is bumped, add its `migrate(snapshot, fromVersion)` here.
 */
export const resolutionActorKind = {
  name: 'resolution',
  machine: resolutionMachine,
  version: RESOLUTION_MACHINE_VERSION,
} as const;

/** The hold actor kind. */
export const holdActorKind = { name: 'hold', machine: holdMachine, version: HOLD_MACHINE_VERSION } as const;

/** The booking actor kind. */
export const bookingActorKind = { name: 'booking', machine: bookingMachine, version: BOOKING_MACHINE_VERSION } as const;

/** The waitlist entry actor kind. */
export const waitlistEntryActorKind = {
  name: 'waitlist_entry',
  machine: waitlistEntryMachine,
  version: WAITLIST_ENTRY_MACHINE_VERSION,
} as const;
