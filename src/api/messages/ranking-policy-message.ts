import {
  RankingPolicyStatus as RankingPolicyStatusMessage,
  TieBreaker as TieBreakerMessage,
  type RankingPolicy,
  type RankingPolicy_Weights,
  type RankingPolicyVersion,
} from '../../gen/scheduling/v1/resources.js';
import type { RankingWeights, TieBreaker } from '../../domain/ranking/ranking-policy.js';
import type { RankingPolicyRecord, RankingPolicyVersionRecord } from '../../persistence/ranking-policy-repository.js';
import type { RankingPolicyStatus } from '../../../machines/ranking-policy-machine.js';

/** A policy status as the message names it. */
export const RANKING_POLICY_STATUS_MESSAGE: Record<RankingPolicyStatus, RankingPolicyStatusMessage> = {
  draft: RankingPolicyStatusMessage.RANKING_POLICY_STATUS_DRAFT,
  active: RankingPolicyStatusMessage.RANKING_POLICY_STATUS_ACTIVE,
  inactive: RankingPolicyStatusMessage.RANKING_POLICY_STATUS_INACTIVE,
};

/** A tie-breaker as the message names it. */
export const TIE_BREAKER_MESSAGE: Record<TieBreaker, TieBreakerMessage> = {
  earliest_start: TieBreakerMessage.TIE_BREAKER_EARLIEST_START,
  lowest_workload: TieBreakerMessage.TIE_BREAKER_LOWEST_WORKLOAD,
  provider_id: TieBreakerMessage.TIE_BREAKER_PROVIDER_ID,
};

/** The six weights of a policy, each set. */
function weightsMessage(w: RankingWeights): RankingPolicy_Weights {
  return {
    preferredLanguage: w.preferredLanguage,
    preferredDayPart: w.preferredDayPart,
    earliestAvailable: w.earliestAvailable,
    providerContinuity: w.providerContinuity,
    workloadBalance: w.workloadBalance,
    preferredLocation: w.preferredLocation,
  };
}

/** The `RankingPolicy` message of a policy's working copy; a policy never activated leaves `active_version` unset. */
export function rankingPolicyMessage(p: RankingPolicyRecord): RankingPolicy {
  return {
    id: p.id,
    name: p.name,
    rankingPolicyStatus: RANKING_POLICY_STATUS_MESSAGE[p.status],
    weights: weightsMessage(p.weights),
    tieBreakerOrder: p.tieBreakers.map((t) => TIE_BREAKER_MESSAGE[t]),
    activeVersion: p.activeVersion ?? undefined,
    createdAt: new Date(p.createdAt),
    updatedAt: new Date(p.updatedAt),
  };
}

/** The `RankingPolicyVersion` message of an activated version. */
export function rankingPolicyVersionMessage(v: RankingPolicyVersionRecord): RankingPolicyVersion {
  return {
    version: v.version,
    name: v.name,
    weights: weightsMessage(v.weights),
    tieBreakerOrder: v.tieBreakers.map((t) => TIE_BREAKER_MESSAGE[t]),
    activatedAt: new Date(v.activatedAt),
  };
}
