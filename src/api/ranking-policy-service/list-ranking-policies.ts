import { RankingPolicyStatus as RankingPolicyStatusMessage } from '../../gen/scheduling/v1/resources.js';
import type {
  ListRankingPoliciesRequest,
  ListRankingPoliciesResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import type { Database } from '../../persistence/database.js';
import { listRankingPolicies as listRankingPolicyRows } from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';
import type { RankingPolicyStatus } from '../../../machines/ranking-policy-machine.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { RANKING_POLICY_STATUS_MESSAGE, rankingPolicyMessage } from '../messages/ranking-policy-message.js';

const STATUS_OF = new Map<RankingPolicyStatusMessage, RankingPolicyStatus>(
  Object.entries(RANKING_POLICY_STATUS_MESSAGE).map(([rest, message]) => [message, rest as RankingPolicyStatus]),
);

/** What ListRankingPolicies uses. */
export interface ListRankingPoliciesDeps {
  db: Database;
}

/** ListRankingPolicies: the organization's policies, oldest first, a page at a time; `status` filters. */
export async function listRankingPolicies(
  deps: ListRankingPoliciesDeps,
  caller: Caller,
  request: ListRankingPoliciesRequest,
): Promise<ListRankingPoliciesResponse> {
  const problems = new RequestProblems();
  const asked = request.rankingPolicyStatus ?? RankingPolicyStatusMessage.RANKING_POLICY_STATUS_UNSPECIFIED;
  let status: RankingPolicyStatus | undefined;
  if (asked !== RankingPolicyStatusMessage.RANKING_POLICY_STATUS_UNSPECIFIED) {
    status = STATUS_OF.get(asked);
    if (status === undefined) problems.add('status', 'Invalid option: expected one of "draft"|"active"|"inactive"');
  }
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listRankingPolicyRows(
    deps.db,
    { organizationId: caller.organizationId, status },
    { after: paging.position() ?? '', limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (p) => p.id, rankingPolicyMessage);
}
