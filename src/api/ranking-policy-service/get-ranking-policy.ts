import type {
  GetRankingPolicyRequest,
  GetRankingPolicyResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { RankingPolicyPath } from '../../contract/schemas/ranking-policy.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { rankingPolicyMessage } from '../messages/ranking-policy-message.js';
import { policyOfCaller } from './policy-of-caller.js';

/** What GetRankingPolicy uses. */
export interface GetRankingPolicyDeps {
  db: Database;
}

/** GetRankingPolicy: a policy's working copy (the caller's organization's). */
export async function getRankingPolicy(
  deps: GetRankingPolicyDeps,
  caller: Caller,
  request: GetRankingPolicyRequest,
): Promise<GetRankingPolicyResponse> {
  const id = pathId(RankingPolicyPath.shape.id, request.id);
  return { rankingPolicy: rankingPolicyMessage(await policyOfCaller(deps.db, caller, id)) };
}
