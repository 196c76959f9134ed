import { holdById } from '../../persistence/hold-repository.js';
import { stepHold, type StepHoldDeps } from '../booking/step-hold.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';

/** How often the release is decided again when the hold changed in between. */
const ATTEMPTS = 3;

/**
 * Releases the hold of an offer whose entry was cancelled, through the hold machine's RELEASE (an ended hold changes
 * nothing): its claim ends under the provider's claim lock with its option.released event, which queues the freed
 * slot for the next entry.
 */
export async function releaseOfferHold(deps: StepHoldDeps, holdId: string, caller: Caller): Promise<void> {
  const at = deps.clock().toISOString();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const hold = await holdById(deps.db, holdId);
    if (!hold || !hold.active) return;
    if (await stepHold(deps, hold, { type: 'RELEASE', at }, { causedBy: stepCause(caller), mode: hold.mode })) return;
  }
}
