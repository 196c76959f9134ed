import type {
  ListRankingPolicyVersionsRequest,
  ListRankingPolicyVersionsResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { RankingPolicyPath } from '../../contract/schemas/ranking-policy.js';
import { validationError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { listRankingPolicyVersions as listRankingPolicyVersionRows } from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems, pathId } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { rankingPolicyVersionMessage } from '../messages/ranking-policy-message.js';
import { policyOfCaller } from './policy-of-caller.js';

/** What ListRankingPolicyVersions uses. */
export interface ListRankingPolicyVersionsDeps {
  db: Database;
}

/** ListRankingPolicyVersions: a policy's activated versions, oldest first, a page at a time. */
export async function listRankingPolicyVersions(
  deps: ListRankingPolicyVersionsDeps,
  caller: Caller,
  request: ListRankingPolicyVersionsRequest,
): Promise<ListRankingPolicyVersionsResponse> {
  const id = pathId(RankingPolicyPath.shape.id, request.id);
  const problems = new RequestProblems();
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  await policyOfCaller(deps.db, caller, id);
  const position = paging.position();
  if (position !== undefined && !/^\d{1,9}$/.test(position))
    throw validationError([{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }]);
  const rows = await listRankingPolicyVersionRows(deps.db, id, {
    afterVersion: Number(position ?? 0),
    limit: paging.size + 1,
  });
  return pageMessage(rows, paging.size, (v) => String(v.version), rankingPolicyVersionMessage);
}
