import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createRankingPolicy, type CreateRankingPolicyDeps } from './create-ranking-policy.js';
import { listRankingPolicies, type ListRankingPoliciesDeps } from './list-ranking-policies.js';
import { getRankingPolicy, type GetRankingPolicyDeps } from './get-ranking-policy.js';
import { updateRankingPolicy, type UpdateRankingPolicyDeps } from './update-ranking-policy.js';
import { activateRankingPolicy, type ActivateRankingPolicyDeps } from './activate-ranking-policy.js';
import { listRankingPolicyVersions, type ListRankingPolicyVersionsDeps } from './list-ranking-policy-versions.js';
import { simulateRankingPolicy, type SimulateRankingPolicyDeps } from './simulate-ranking-policy.js';

/** What the RankingPolicyService RPCs use together. */
export type RankingPolicyServiceDeps = CreateRankingPolicyDeps &
  ListRankingPoliciesDeps &
  GetRankingPolicyDeps &
  UpdateRankingPolicyDeps &
  ActivateRankingPolicyDeps &
  ListRankingPolicyVersionsDeps &
  SimulateRankingPolicyDeps;

/** RankingPolicyService (SPEC 4.5, CONTRACT part 7): each RPC with what it records in the audit log. */
export function rankingPolicyService(deps: RankingPolicyServiceDeps): OperationTable {
  return {
    CreateRankingPolicy: typedOperation({ ...AUDIT_ACTIONS.rankingPolicyCreate, kind: 'write' }, (caller, r) =>
      createRankingPolicy(deps, caller, r),
    ),
    ListRankingPolicies: typedOperation({ ...AUDIT_ACTIONS.rankingPolicyList, kind: 'read' }, (caller, r) =>
      listRankingPolicies(deps, caller, r),
    ),
    GetRankingPolicy: typedOperation({ ...AUDIT_ACTIONS.rankingPolicyRead, kind: 'read' }, (caller, r) =>
      getRankingPolicy(deps, caller, r),
    ),
    UpdateRankingPolicy: typedOperation(
      { ...AUDIT_ACTIONS.rankingPolicyUpdate, kind: 'write-if-changed' },
      (caller, r) => updateRankingPolicy(deps, caller, r),
    ),
    ActivateRankingPolicy: typedOperation({ ...AUDIT_ACTIONS.rankingPolicyActivate, kind: 'write' }, (caller, r) =>
      activateRankingPolicy(deps, caller, r),
    ),
    ListRankingPolicyVersions: typedOperation({ ...AUDIT_ACTIONS.rankingPolicyRead, kind: 'read' }, (caller, r) =>
      listRankingPolicyVersions(deps, caller, r),
    ),
    SimulateRankingPolicy: typedOperation({ ...AUDIT_ACTIONS.rankingPolicySimulate, kind: 'read' }, (caller, r) =>
      simulateRankingPolicy(deps, caller, r),
    ),
  };
}
