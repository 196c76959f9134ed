import type { ReleaseHoldRequest, ReleaseHoldResponse } from '../../gen/scheduling/v1/resolution_service.js';
import type { Caller } from '../../application/caller.js';
import { releaseHold as runRelease } from '../../application/booking/hold-flows.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { holdMessage } from '../messages/resolution-message.js';
import { holdPath } from './hold-path.js';

/** What ReleaseHold uses: the resolution records, the hold ledger, the hold and resolution actors and the clock. */
export type ReleaseHoldDeps = Pick<ResolutionDeps, 'records' | 'db' | 'actors' | 'clock'>;

/**
 * ReleaseHold (DELETE /api/v2/resolutions/:id/options/:optionId/hold): releases the option's hold; releasing again
 * answers the same hold, an expired one is 410 HOLD_EXPIRED, one used by a booking 409 HOLD_RELEASED.
 */
export async function releaseHold(
  deps: ReleaseHoldDeps,
  caller: Caller,
  request: ReleaseHoldRequest,
): Promise<ReleaseHoldResponse> {
  const { id, optionId } = holdPath(request);
  return { hold: holdMessage(await runRelease(deps, caller, id, optionId)) };
}
