/** Ranking factor codes (CONTRACT part 4) and the `{code, points}` entries options carry. */

/** Every ranking factor code the service reports. */
export const RANKING_FACTOR_CODES = [
  'PREFERRED_LANGUAGE',
  'PREFERRED_DAY_PART',
  'EARLIEST_AVAILABLE',
  'PROVIDER_CONTINUITY',
  'WORKLOAD_BALANCE',
  'PREFERRED_LOCATION',
  'PREFERRED_SPECIALTY',
  'AVAILABILITY_DENSITY',
] as const;

/** One ranking factor code. */
export type RankingFactorCode = (typeof RANKING_FACTOR_CODES)[number];

/** A factor that contributed to an option's score. */
export interface RankingFactor {
  code: RankingFactorCode;
  points: number;
}
