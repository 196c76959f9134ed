import type { GetHoldRequest, GetHoldResponse } from '../../gen/scheduling/v1/resolution_service.js';
import type { Caller } from '../../application/caller.js';
import { getHold as readHold } from '../../application/booking/hold-flows.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { holdMessage } from '../messages/resolution-message.js';
import { holdPath } from './hold-path.js';

/** What GetHold uses: the resolution records, the hold ledger and the clock. */
export type GetHoldDeps = Pick<ResolutionDeps, 'records' | 'db' | 'clock'>;

/** GetHold (GET /api/v2/resolutions/:id/options/:optionId/hold): the option's latest hold, as it stands now. */
export async function getHold(deps: GetHoldDeps, caller: Caller, request: GetHoldRequest): Promise<GetHoldResponse> {
  const { id, optionId } = holdPath(request);
  return { hold: holdMessage(await readHold(deps, caller, id, optionId)) };
}
