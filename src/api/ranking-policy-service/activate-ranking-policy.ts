import type {
  ActivateRankingPolicyRequest,
  ActivateRankingPolicyResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { RankingPolicyPath } from '../../contract/schemas/ranking-policy.js';
import type { Database } from '../../persistence/database.js';
import {
  insertRankingPolicyVersion,
  lockRankingPolicyActivations,
  nextRankingPolicyVersion,
  setStatusOfOtherActivePolicies,
  writeRankingPolicyActivation,
} from '../../persistence/ranking-policy-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { rankingPolicyMachine, type RankingPolicyStatus } from '../../../machines/ranking-policy-machine.js';
import { rowStatusAfter } from '../../../machines/row-lifecycle.js';
import { pathId } from '../request-problems.js';
import { policyOfCaller } from './policy-of-caller.js';

/** What ActivateRankingPolicy uses. */
export interface ActivateRankingPolicyDeps {
  db: Database;
  clock: () => Date;
}

/**
 * ActivateRankingPolicy: snapshots the working copy as the policy's next version and makes it the organization's one
 * active policy (the previously active one becomes `inactive`). Audited as `ranking_policy.activate` in the same
 * transaction, with the policies it deactivated.
 */
export async function activateRankingPolicy(
  deps: ActivateRankingPolicyDeps,
  caller: Caller,
  request: ActivateRankingPolicyRequest,
): Promise<ActivateRankingPolicyResponse> {
  const id = pathId(RankingPolicyPath.shape.id, request.id);
  await policyOfCaller(deps.db, caller, id);
  const now = deps.clock();
  const activated = await deps.db.transaction(async (tx) => {
    // Serializes activations within one organization, so the one-active index never trips on a concurrent activation.
    await lockRankingPolicyActivations(tx, caller.organizationId);
    const cur = await policyOfCaller(tx, caller, id, { forUpdate: true });
    const version = await nextRankingPolicyVersion(tx, id);
    await insertRankingPolicyVersion(tx, {
      policyId: id,
      version,
      organizationId: caller.organizationId,
      name: cur.name,
      weights: cur.weights,
      tieBreakers: cur.tieBreakers,
      activatedAt: now,
    });
    // The previous active policy goes first: the partial unique index allows one active row per organization.
    // The machine decides both changes: this policy's, and the one the previously active policy makes.
    const to = rowStatusAfter<RankingPolicyStatus>(rankingPolicyMachine, cur.status, { type: 'ACTIVATE' });
    const offTo = rowStatusAfter<RankingPolicyStatus>(rankingPolicyMachine, 'active', { type: 'DEACTIVATE' });
    if (to !== 'active' || offTo === undefined)
      throw new Error(`ranking policy machine: no activation from ${cur.status}`);
    const deactivatedPolicyIds = await setStatusOfOtherActivePolicies(tx, {
      organizationId: caller.organizationId,
      exceptId: id,
      status: offTo,
      now,
    });
    await writeRankingPolicyActivation(tx, { id, version, status: to, activatedAt: now });
    const result = { id, status: to, version, activatedAt: now.toISOString() };
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.rankingPolicyActivate,
      resourceId: id,
      before: { status: cur.status, activeVersion: cur.activeVersion },
      after: { ...result, weights: cur.weights, tieBreakers: cur.tieBreakers, deactivatedPolicyIds },
    });
    return result;
  });
  return {
    activatedRankingPolicy: {
      id: activated.id,
      status: activated.status,
      version: activated.version,
      activatedAt: now,
    },
  };
}
