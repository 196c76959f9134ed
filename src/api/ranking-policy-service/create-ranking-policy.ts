import type {
  CreateRankingPolicyRequest,
  CreateRankingPolicyResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { CreateRankingPolicyBody } from '../../contract/schemas/ranking-policy.js';
import { DEFAULT_POLICY, withDefaultWeights } from '../../domain/ranking/ranking-policy.js';
import type { Database } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import { insertRankingPolicy } from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { rankingPolicyMachine, type RankingPolicyStatus } from '../../../machines/ranking-policy-machine.js';
import { rowInitialStatus } from '../../../machines/row-lifecycle.js';
import { given } from '../request-problems.js';
import { rankingPolicyMessage } from '../messages/ranking-policy-message.js';
import { judgePolicyInput, tieBreakersGiven, weightsGiven } from './policy-input.js';

/** What CreateRankingPolicy uses. */
export interface CreateRankingPolicyDeps {
  db: Database;
  clock: () => Date;
}

/**
 * CreateRankingPolicy: a draft policy of the caller's organization; weight keys left out take the default policy's
 * weights, no tie-breakers the default order. Audited as `ranking_policy.create` in the same transaction.
 */
export async function createRankingPolicy(
  deps: CreateRankingPolicyDeps,
  caller: Caller,
  request: CreateRankingPolicyRequest,
): Promise<CreateRankingPolicyResponse> {
  const order = request.tieBreakerOrder ?? [];
  const body = judgePolicyInput(
    CreateRankingPolicyBody,
    {
      name: given(request.name),
      weights: request.weights ? weightsGiven(request.weights) : undefined,
      // A list has no presence: an empty one is the default order.
      tieBreakers: order.length > 0 ? tieBreakersGiven(order) : undefined,
    },
    { required: true },
  );
  const now = deps.clock();
  const view = await deps.db.transaction(async (tx) => {
    const inserted = await insertRankingPolicy(tx, {
      id: newId('pol', now.getTime()),
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      name: body.name,
      status: rowInitialStatus<RankingPolicyStatus>(rankingPolicyMachine),
      weights: withDefaultWeights(body.weights ?? {}),
      tieBreakers: body.tieBreakers ?? [...DEFAULT_POLICY.tieBreakers],
      now,
    });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.rankingPolicyCreate,
      resourceId: inserted.id,
      after: inserted,
    });
    return inserted;
  });
  return { rankingPolicy: rankingPolicyMessage(view) };
}
