/** Ranks the free slots of eligible providers into at most `limit` options (CONTRACT part 4, SPEC 4.5). */
import { createRankingContext, workloadOf, type ScoredSlot } from './ranking-context.js';
import type { RankingPolicy } from './ranking-policy.js';
import type { RankedOption, RankingCandidate, RankingPreferences } from './ranking-records.js';

export type {
  RankedOption,
  RankingCandidate,
  RankingPreferences,
  RankingProvider,
  RankingSlot,
} from './ranking-records.js';

/** Input of rankOptions. */
export interface RankOptionsInput {
  candidates: readonly RankingCandidate[];
  preferences: RankingPreferences;
  policy: Pick<RankingPolicy, 'weights' | 'tieBreakers'>;
  /** 1..10, clamped. @default 3 */
  maxOptionsPerProvider?: number | undefined;
  /** At least 1. @default 10 */
  limit?: number | undefined;
  /** End of the search window (epoch ms); EARLIEST_AVAILABLE falls linearly to 0 there. */
  windowEnd: number;
}

/** Default and bounds of maxOptionsPerProvider (CONTRACT part 4). */
export const MAX_OPTIONS_PER_PROVIDER = { default: 3, min: 1, max: 10 } as const;

/** Options a resolution returns at most (SPEC part 8). */
export const OPTIONS_LIMIT = 10;

/**
 * rankOptions scores every free slot and returns the best options: score desc, then availability density desc,
 * then the policy's tie-breakers, then slot start, provider id and slot end, so the order never depends on input order.
 * Each provider keeps only its best `maxOptionsPerProvider` slots before a bounded top-`limit` selection.
 */
export function rankOptions(input: RankOptionsInput): RankedOption[] {
  const { candidates } = input;
  const perProvider = clampInt(
    input.maxOptionsPerProvider,
    MAX_OPTIONS_PER_PROVIDER.default,
    MAX_OPTIONS_PER_PROVIDER.min,
    MAX_OPTIONS_PER_PROVIDER.max,
  );
  const limit = clampInt(input.limit, OPTIONS_LIMIT, 1, Number.MAX_SAFE_INTEGER);

  let earliest = Infinity;
  let maxWorkload = -Infinity;
  let minWorkload = Infinity;
  for (const c of candidates) {
    if (c.slots.length === 0) continue;
    const w = workloadOf(c.workload);
    if (w > maxWorkload) maxWorkload = w;
    if (w < minWorkload) minWorkload = w;
    for (const s of c.slots) if (s.start < earliest) earliest = s.start;
  }
  if (earliest === Infinity) return [];

  const context = createRankingContext({
    preferences: input.preferences,
    policy: input.policy,
    perProvider,
    limit,
    earliest,
    minWorkload,
    maxWorkload,
    windowEnd: input.windowEnd,
  });
  const top: ScoredSlot[] = [];
  for (const c of candidates) {
    if (c.slots.length === 0) continue;
    context.addCandidate(top, c, context.providerPoints(c.provider, workloadOf(c.workload), c.continuity));
  }
  return context.toOptions(top);
}

/** clampInt truncates a number into [min, max], or gives `fallback` for undefined and non-finite values. */
export function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}
