import type {
  UpdateRankingPolicyRequest,
  UpdateRankingPolicyResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { RankingPolicyPath, UpdateRankingPolicyBody } from '../../contract/schemas/ranking-policy.js';
import type { ErrorDetail } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { updateRankingPolicy as updateRankingPolicyRow } from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { pathId } from '../request-problems.js';
import { readUpdateMask } from '../update-mask.js';
import { rankingPolicyMessage } from '../messages/ranking-policy-message.js';
import { judgePolicyInput, tieBreakersGiven, weightsGiven } from './policy-input.js';
import { policyOfCaller } from './policy-of-caller.js';

/** What UpdateRankingPolicy uses. */
export interface UpdateRankingPolicyDeps {
  db: Database;
  clock: () => Date;
}

/**
 * The fields an update may name in its mask: REST's names, and the message's own name of the tie-breakers
 * (`tie_breaker_order`).
 */
const UPDATABLE = ['name', 'weights', 'tieBreakers', 'tieBreakerOrder'] as const;

/**
 * UpdateRankingPolicy: edits a policy's working copy (never its activated versions): the fields the `update_mask`
 * names (without one: the fields set); `weights` given are merged key by key, the tie-breakers replace the list (named
 * and empty: none). A change is audited as `ranking_policy.update` in the same transaction; an update that changes
 * nothing answers the policy as it is and records nothing.
 */
export async function updateRankingPolicy(
  deps: UpdateRankingPolicyDeps,
  caller: Caller,
  request: UpdateRankingPolicyRequest,
): Promise<UpdateRankingPolicyResponse> {
  const order = request.tieBreakerOrder ?? [];
  const named = readUpdateMask(request.updateMask, UPDATABLE, {
    name: request.name !== undefined,
    weights: request.weights !== undefined,
    tieBreakers: false,
    tieBreakerOrder: order.length > 0,
  });
  const id = pathId(RankingPolicyPath.shape.id, request.id);
  // Tenancy and existence first, so a foreign id is 403 whatever the body says.
  await policyOfCaller(deps.db, caller, id);
  const asked: Record<string, unknown> = {};
  const unset: ErrorDetail[] = [];
  if (named.has('name')) {
    if (request.name === undefined)
      unset.push({ field: 'name', code: 'INVALID', message: 'Invalid input: expected string, received null' });
    else asked.name = request.name;
  }
  if (named.has('weights')) {
    if (request.weights === undefined)
      unset.push({ field: 'weights', code: 'INVALID', message: 'Invalid input: expected object, received null' });
    else asked.weights = weightsGiven(request.weights);
  }
  if (named.has('tieBreakers') || named.has('tieBreakerOrder')) asked.tieBreakers = tieBreakersGiven(order);
  const body = judgePolicyInput(UpdateRankingPolicyBody, asked, { required: false, unset });
  const now = deps.clock();
  const after = await deps.db.transaction(async (tx) => {
    const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
    const name = body.name ?? cur.name;
    const weights = body.weights === undefined ? cur.weights : { ...cur.weights, ...body.weights };
    const tieBreakers = body.tieBreakers ?? cur.tieBreakers;
    if (
      name === cur.name &&
      JSON.stringify(weights) === JSON.stringify(cur.weights) &&
      JSON.stringify(tieBreakers) === JSON.stringify(cur.tieBreakers)
    )
      return cur;
    const view = await updateRankingPolicyRow(tx, id, { name, weights, tieBreakers, now });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.rankingPolicyUpdate,
      resourceId: id,
      before: cur,
      after: view,
    });
    return view;
  });
  return { rankingPolicy: rankingPolicyMessage(after) };
}
