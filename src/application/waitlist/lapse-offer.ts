import { holdById } from '../../persistence/hold-repository.js';
import { findWaitlistEntry } from '../../persistence/waitlist-repository.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';
import { expireHold } from '../booking/hold-flows.js';
import type { StepHoldDeps } from '../booking/step-hold.js';
import { bookOffer } from './book-offer.js';
import { stepWaitlistEntry, type StepWaitlistEntryDeps } from './step-waitlist-entry.js';

/** What lapseOffer uses: the offer's hold ends through stepHold, the entry steps through stepWaitlistEntry. */
export type LapseOfferDeps = StepHoldDeps & StepWaitlistEntryDeps;

/**
 * The durable `lapse` timer of an offered entry (and the overdue sweep's repair): the offer's hold ends first through
 * its own machine (its timer may be later; the ledger's claim end queues the freed slot for the next entry), then the
 * entry's machine takes LAPSE: back to `waiting`, the slot remembered so it goes to the next entry. A hold consumed by
 * a confirm whose BOOK was lost (a crash after the confirm) books the entry instead. A late, early or repeated timer
 * is harmless: the machine's guard re-checks the time, and an entry no longer offered ignores it.
 */
export async function lapseOffer(deps: LapseOfferDeps, entryId: string): Promise<void> {
  const stored = await findWaitlistEntry(deps.db, entryId);
  const offer = stored?.doc.offer;
  if (!stored || stored.entry.status !== 'offered' || !offer) return;
  const at = deps.clock().toISOString();
  if (Date.parse(at) < Date.parse(offer.expiresAt)) return;
  await expireHold(deps, offer.holdId);
  const hold = await holdById(deps.db, offer.holdId);
  if (hold?.end_reason === 'consumed' && hold.booking_id) {
    await bookOffer(deps, entryId, { resolutionId: offer.resolutionId, bookingId: hold.booking_id, at });
    return;
  }
  await stepWaitlistEntry(deps, entryId, { type: 'LAPSE', at }, { audit: AUDIT_ACTIONS.waitlistEntryLapse });
}
