import {
  ListCandidatesRequest_Status,
  type ListCandidatesRequest,
  type ListCandidatesResponse,
} from '../../gen/scheduling/v1/resolution_service.js';
import { CandidatesQuery, ResolutionPath } from '../../contract/schemas/resolution.js';
import type { Caller } from '../../application/caller.js';
import { accessResolution } from '../../application/resolution/read-resolution.js';
import { buildCandidates, pageCandidates } from '../../application/resolution/list-candidates.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems, given, pathId } from '../request-problems.js';
import { readPageRequest } from '../page-request.js';
import { candidatesPageMessage } from '../messages/resolution-message.js';

/**
 * What ListCandidates uses: the resolution records (and graph snapshots), its actor, the clock, the ledger (a lost
 * actor's resync) and the provider graphs (a snapshot not yet written).
 */
export type ListCandidatesDeps = Pick<ResolutionDeps, 'records' | 'actors' | 'clock' | 'db' | 'orgGraphs'>;

/** A status filter by REST value; UNSPECIFIED: no filter. */
const STATUS_OF: Partial<Record<ListCandidatesRequest_Status, string>> = {
  [ListCandidatesRequest_Status.STATUS_MATCHED]: 'matched',
  [ListCandidatesRequest_Status.STATUS_ELIGIBLE]: 'eligible',
  [ListCandidatesRequest_Status.STATUS_EXCLUDED]: 'excluded',
  [ListCandidatesRequest_Status.STATUS_UNKNOWN]: 'unknown',
};

const RULES = CandidatesQuery.shape;

/**
 * ListCandidates (GET /api/v2/resolutions/:id/candidates): every provider's eligibility record for a resolution,
 * filtered by status or exclusion code and paged.
 */
export async function listCandidates(
  deps: ListCandidatesDeps,
  caller: Caller,
  request: ListCandidatesRequest,
): Promise<ListCandidatesResponse> {
  const id = pathId(ResolutionPath.shape.id, request.id);
  const problems = new RequestProblems();
  const status =
    request.status === undefined || request.status === ListCandidatesRequest_Status.STATUS_UNSPECIFIED
      ? undefined
      : (STATUS_OF[request.status] ?? request.status);
  const checkedStatus = problems.check('status', RULES.status, status);
  const exclusionCode = problems.check('exclusionCode', RULES.exclusionCode, given(request.exclusionCode));
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const { record } = await accessResolution(deps, caller, id);
  const page = pageCandidates(await buildCandidates(deps, record), {
    status: checkedStatus,
    exclusionCode,
    limit: paging.size,
    cursor: paging.token,
  });
  return { candidatesPage: candidatesPageMessage({ resolutionId: id, ...page }) };
}
