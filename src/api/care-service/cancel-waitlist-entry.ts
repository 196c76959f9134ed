import type { CancelWaitlistEntryRequest, CancelWaitlistEntryResponse } from '../../gen/scheduling/v1/care_service.js';
import { WaitlistEntryPath } from '../../contract/schemas/care.js';
import { ServiceError } from '../../errors/service-error.js';
import { findWaitlistEntry } from '../../persistence/waitlist-repository.js';
import type { Caller } from '../../application/caller.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { releaseOfferHold } from '../../application/waitlist/release-offer-hold.js';
import { stepWaitlistEntry } from '../../application/waitlist/step-waitlist-entry.js';
import { pathId } from '../request-problems.js';
import { waitlistEntryMessage } from '../messages/care-messages.js';

/** What CancelWaitlistEntry uses: the ledger, the entry's (and its offer hold's) actors and the clock. */
export type CancelWaitlistEntryDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock'>;

/**
 * CancelWaitlistEntry: the machine decides — a waiting or offered entry is cancelled (an offer's hold is released at
 * once, its slot given back), a cancelled or booked one answers as it is. A change is audited as
 * `waitlist_entry.cancel`.
 */
export async function cancelWaitlistEntry(
  deps: CancelWaitlistEntryDeps,
  caller: Caller,
  request: CancelWaitlistEntryRequest,
): Promise<CancelWaitlistEntryResponse> {
  const id = pathId(WaitlistEntryPath.shape.id, request.id);
  const found = await findWaitlistEntry(deps.db, id);
  if (!found) throw new ServiceError('WAITLIST_ENTRY_NOT_FOUND');
  if (found.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  const now = deps.clock();
  const step = await stepWaitlistEntry(
    deps,
    id,
    { type: 'CANCEL', at: now.toISOString() },
    {
      caller,
      audit: AUDIT_ACTIONS.waitlistEntryCancel,
      check: (stored) => {
        if (stored.organizationId !== caller.organizationId) throw new ServiceError('FORBIDDEN');
      },
    },
  );
  if (!step) throw new ServiceError('WAITLIST_ENTRY_NOT_FOUND');
  // An offer cancelled with its entry gives its slot back at once: the hold is released (and its freed time queued
  // for the next entry), rather than left to lapse.
  const offer = step.before.doc.offer;
  if (step.changed && step.before.entry.status === 'offered' && offer)
    await releaseOfferHold(deps, offer.holdId, caller);
  return { waitlistEntry: waitlistEntryMessage(step.entry) };
}
