import type { GetResolutionRequest, GetResolutionResponse } from '../../gen/scheduling/v1/resolution_service.js';
import { ResolutionPath } from '../../contract/schemas/resolution.js';
import type { Caller } from '../../application/caller.js';
import { accessResolution, type AccessResolutionDeps } from '../../application/resolution/read-resolution.js';
import { pathId } from '../request-problems.js';
import { resolutionMessage } from '../messages/resolution-message.js';

/** What GetResolution uses: the resolution records and actors, the clock and the ledger (a lost actor's resync). */
export type GetResolutionDeps = AccessResolutionDeps;

/**
 * GetResolution (GET /api/v2/resolutions/:id): the resolution as made, with its current deadline; 404 unknown, 403
 * another organization's, 410 RESOLUTION_EXPIRED once expired.
 */
export async function getResolution(
  deps: GetResolutionDeps,
  caller: Caller,
  request: GetResolutionRequest,
): Promise<GetResolutionResponse> {
  const id = pathId(ResolutionPath.shape.id, request.id);
  const { record, expiresAt } = await accessResolution(deps, caller, id);
  return { resolution: resolutionMessage({ ...record.response, expiresAt }) };
}
