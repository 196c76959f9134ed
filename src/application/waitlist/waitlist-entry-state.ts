import type {
  WaitlistEntryContext,
  WaitlistEntryEvent,
  WaitlistEntryInput,
} from '../../../machines/waitlist-entry-machine.js';
import { waitlistEntryMachine } from '../../../machines/waitlist-entry-machine.js';
import type { StoredWaitlistEntry, WaitlistDoc, WaitlistEntryStatus } from '../../persistence/waitlist-repository.js';
import { machineStep } from '../lifecycle/machine-step.js';

/** The waitlist entry machine's context rebuilt from the stored row (the system of record). */
export function waitlistEntryContextOf(stored: StoredWaitlistEntry): WaitlistEntryContext {
  const d = stored.doc;
  return {
    entryId: stored.entry.id,
    organizationId: stored.organizationId,
    serviceId: d.serviceId,
    mode: d.mode ?? 'live',
    createdAt: stored.entry.createdAt,
    offer: d.offer ?? null,
    offersMade: d.offersMade ?? 0,
    lapsedSlots: d.lapsedSlots ?? [],
    bookingId: d.bookingId ?? null,
    bookedAt: d.bookedAt ?? null,
    cancelledAt: d.cancelledAt ?? null,
  };
}

/** What a waitlist entry actor starts from, for a stored entry. */
export function waitlistEntryInputOf(stored: StoredWaitlistEntry): WaitlistEntryInput {
  return {
    entryId: stored.entry.id,
    organizationId: stored.organizationId,
    serviceId: stored.doc.serviceId,
    mode: stored.doc.mode ?? 'live',
    at: stored.entry.createdAt,
  };
}

/** One step of a stored entry through its machine (pure): the next status, the doc to store, and whether it changed. */
export function waitlistEntryStep(
  stored: StoredWaitlistEntry,
  event: WaitlistEntryEvent,
): { status: WaitlistEntryStatus; doc: WaitlistDoc; changed: boolean; context: WaitlistEntryContext } {
  const step = machineStep(
    waitlistEntryMachine,
    stored.entry.status,
    waitlistEntryContextOf(stored) as unknown as Record<string, unknown>,
    event,
  );
  const c = step.context as unknown as WaitlistEntryContext;
  const doc: WaitlistDoc = {
    ...stored.doc,
    mode: c.mode,
    offer: c.offer,
    offersMade: c.offersMade,
    lapsedSlots: c.lapsedSlots,
    bookingId: c.bookingId,
    bookedAt: c.bookedAt,
    cancelledAt: c.cancelledAt,
  };
  return { status: step.value as WaitlistEntryStatus, doc, changed: step.changed, context: c };
}
