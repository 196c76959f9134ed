import type { ListResolutionsRequest, ListResolutionsResponse } from '../../gen/scheduling/v1/resolution_service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { listResolutions as readResolutions } from '../../application/resolution/list-resolutions.js';
import { RequestProblems } from '../request-problems.js';
import { readPageRequest } from '../page-request.js';
import { resolutionSummaryMessage } from '../messages/resolution-message.js';

/** What ListResolutions uses. */
export interface ListResolutionsDeps {
  db: Database;
}

/** Page sizes of the resolutions list (REST `limit`: default 20, at most 100). */
const RESOLUTION_PAGE = { min: 1, max: 100, default: 20 } as const;

/** ListResolutions (GET /api/v2/resolutions): the caller's organization's resolutions from the ledger, newest first. */
export async function listResolutions(
  deps: ListResolutionsDeps,
  caller: Caller,
  request: ListResolutionsRequest,
): Promise<ListResolutionsResponse> {
  const problems = new RequestProblems();
  const paging = readPageRequest(problems, request, RESOLUTION_PAGE);
  problems.throwIfAny();
  const page = await readResolutions(deps, caller, { limit: paging.size, cursor: paging.token });
  return {
    data: page.data.map(resolutionSummaryMessage),
    hasMore: page.hasMore,
    nextPageToken: page.nextCursor ?? undefined,
  };
}
