import { DayPart } from '../../gen/scheduling/v1/resources.js';
import type {
  SimulateRankingPolicyRequest,
  SimulateRankingPolicyResponse,
} from '../../gen/scheduling/v1/ranking_policy_service.js';
import { RankingPolicyPath, SimulateRankingPolicyBody } from '../../contract/schemas/ranking-policy.js';
import { parseInput } from '../../contract/parse-input.js';
import { simulate } from '../../domain/ranking/simulate-ranking.js';
import { validationError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { given, pathId } from '../request-problems.js';
import { policyOfCaller } from './policy-of-caller.js';

/** What SimulateRankingPolicy uses. */
export interface SimulateRankingPolicyDeps {
  db: Database;
}

/** A day part by REST value; UNSPECIFIED (or one unknown) is judged as no day part. */
const DAY_PART_OF: Partial<Record<DayPart, string>> = {
  [DayPart.DAY_PART_MORNING]: 'morning',
  [DayPart.DAY_PART_AFTERNOON]: 'afternoon',
  [DayPart.DAY_PART_EVENING]: 'evening',
};

/**
 * SimulateRankingPolicy: ranks hypothetical candidates (a provider and one slot start each) with the policy's working
 * copy, as a resolution would (`policy.version` is null: no activated version is used). Stores nothing.
 */
export async function simulateRankingPolicy(
  deps: SimulateRankingPolicyDeps,
  caller: Caller,
  request: SimulateRankingPolicyRequest,
): Promise<SimulateRankingPolicyResponse> {
  const id = pathId(RankingPolicyPath.shape.id, request.id);
  const policy = await policyOfCaller(deps.db, caller, id);
  // The candidates and preferences in their REST spelling, judged with the contract's rule of the body (lengths,
  // timestamps, language codes normalized as REST normalizes them).
  const p = request.preferences;
  const body = parseInput(SimulateRankingPolicyBody, {
    candidates: (request.candidates ?? []).map((c) => ({
      providerId: given(c.providerId),
      displayName: c.displayName ?? '',
      languageCodes: c.languageCodes ?? [],
      slotStart: given(c.slotStartText),
    })),
    preferences: p && {
      languageCodes: p.languageCodes?.length ? p.languageCodes : undefined,
      dayParts: p.preferredDayParts?.length ? p.preferredDayParts.map((d) => DAY_PART_OF[d] ?? d) : undefined,
      earliestAvailable: p.earliestAvailable,
      timezone: p.timezone,
    },
  });
  let ranked;
  try {
    ({ ranked } = simulate(policy, body.candidates, body.preferences ?? {}));
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw validationError([
      { field: err.message.split(':')[0] ?? 'candidates', code: 'INVALID', message: err.message },
    ]);
  }
  return {
    simulationResult: {
      policy: { id: policy.id },
      ranked: ranked.map((r) => ({
        rank: r.rank,
        providerId: r.providerId,
        displayName: r.displayName,
        slotStart: String(r.slotStart),
        score: r.score,
        rankingFactors: r.rankingFactors.map((f) => ({ code: f.code, points: f.points })),
      })),
    },
  };
}
