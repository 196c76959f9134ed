/** Ranking policy: preference weights and tie-breakers (SPEC 4.5, CONTRACT parts 4 and 7). */

/** The six weight keys of SPEC part 2; hard constraints are never weights. */
export const WEIGHT_KEYS = [
  'preferredLanguage',
  'preferredDayPart',
  'earliestAvailable',
  'providerContinuity',
  'workloadBalance',
  'preferredLocation',
] as const;

/** One of the six weight keys. */
export type WeightKey = (typeof WEIGHT_KEYS)[number];

/** Points given to each preference factor when it fully applies. */
export type RankingWeights = Record<WeightKey, number>;

/** The tie-breakers a policy may list, applied in its order after score and availability density. */
export const TIE_BREAKERS = ['earliest_start', 'lowest_workload', 'provider_id'] as const;

/** One tie-breaker of a policy. */
export type TieBreaker = (typeof TIE_BREAKERS)[number];

/** What ranking needs of a policy (a stored policy version or a working copy). */
export interface RankingPolicy {
  id: string;
  /** `null` for a working copy that was never activated (simulate). */
  version: number | null;
  weights: RankingWeights;
  tieBreakers: readonly TieBreaker[];
}

/**
 * Points of PREFERRED_SPECIALTY. SPEC gives policies exactly six weight keys, so this optional preference
 * has a fixed weight instead of a seventh key.
 */
export const PREFERRED_SPECIALTY_POINTS = 10;

/** The built-in policy used when a request names none and the organization has no active one. */
export const DEFAULT_POLICY: RankingPolicy = Object.freeze({
  id: 'default',
  version: 1,
  weights: Object.freeze({
    preferredLanguage: 30,
    preferredDayPart: 15,
    earliestAvailable: 25,
    providerContinuity: 40,
    workloadBalance: 10,
    preferredLocation: 15,
  }),
  tieBreakers: Object.freeze(['earliest_start', 'lowest_workload', 'provider_id'] as const),
});

/** Fills the weight keys a policy input left out with the default policy's weights. */
export function withDefaultWeights(partial: Partial<RankingWeights>): RankingWeights {
  const out = { ...DEFAULT_POLICY.weights };
  for (const key of WEIGHT_KEYS) {
    const v = partial[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}
