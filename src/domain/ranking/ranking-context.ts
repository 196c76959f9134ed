/** The scoring rules of one ranking, fixed once the values every option is judged against are known. */
import { dayPartOfMinute, type DayPart } from './day-part.js';
import { insertBounded } from './insert-bounded.js';
import { sharedMinuteOfDayReader } from './local-minute-of-day.js';
import type {
  RankedOption,
  RankingCandidate,
  RankingPreferences,
  RankingProvider,
  RankingSlot,
} from './ranking-records.js';
import type { RankingFactor } from './ranking-factor.js';
import { PREFERRED_SPECIALTY_POINTS, WEIGHT_KEYS, type RankingPolicy, type TieBreaker } from './ranking-policy.js';

/** What every option of a ranking is judged against: taken over all candidates that have free slots. */
export interface RankingGlobals {
  /** Earliest free slot start among the candidates (epoch ms); EARLIEST_AVAILABLE is full there. */
  earliest: number;
  minWorkload: number;
  maxWorkload: number;
  /** End of the search window (epoch ms); EARLIEST_AVAILABLE falls linearly to 0 there. */
  windowEnd: number;
}

/** Input of createRankingContext. */
export interface RankingContextInput extends RankingGlobals {
  preferences: RankingPreferences;
  policy: Pick<RankingPolicy, 'weights' | 'tieBreakers'>;
  /** Slots each provider may place, already clamped to 1..10. */
  perProvider: number;
  /** Options returned at most, at least 1. */
  limit: number;
}

/** The points of a provider's own factors (the same for each of its slots). */
export interface ProviderPoints {
  language: number;
  continuity: number;
  workload: number;
  location: number;
  specialty: number;
  total: number;
}

/** One scored slot, or a bound on every slot of a provider, in the shape the comparator reads. */
export interface ScoredSlot {
  providerId: string;
  start: number;
  end: number;
  slot: RankingSlot;
  score: number;
  density: number;
  workload: number;
  dayPartPoints: number;
  earliestPoints: number;
  points: ProviderPoints;
}

/** The scoring rules of one ranking (see createRankingContext). */
export interface RankingContext {
  /** Options returned at most. */
  readonly limit: number;
  /** The full order of options: score desc, density desc, the policy's tie-breakers, start, provider id, end. */
  compare(a: ScoredSlot, b: ScoredSlot): number;
  /** Points of a provider's own factors; `workload` as workloadOf gives it. */
  providerPoints(
    provider: Pick<RankingProvider, 'languageCodes' | 'specialtyCodes' | 'location'>,
    workload: number,
    continuity: boolean,
  ): ProviderPoints;
  /**
   * Scores a candidate's slots, keeps its best `perProvider` and merges them into `top` (best first, at most
   * `limit`). The result of merging every candidate does not depend on the order they come in.
   */
  addCandidate(top: ScoredSlot[], candidate: RankingCandidate, points: ProviderPoints): void;
  /**
   * A tuple no worse, in `compare`'s order, than any ranked slot of a provider (see ProviderBoundInput); undefined
   * when the policy's weights are not finite numbers and no bound holds.
   */
  boundOf(provider: ProviderBoundInput): ScoredSlot | undefined;
  /** The ranked options of a top list. */
  toOptions(top: readonly ScoredSlot[]): RankedOption[];
}

/** What is known of a provider's ranked slots before they are scanned. */
export interface ProviderBoundInput {
  providerId: string;
  points: ProviderPoints;
  /** As workloadOf gives it. */
  workload: number;
  /** No ranked slot starts earlier. */
  lowestStart: number;
  /**
   * No ranked slot that the requested day parts give points starts earlier: Infinity when none can, -Infinity
   * when nothing is known.
   */
  preferredFrom: number;
  /** Slots ranked at most, out of `evaluated` checked (the availability density's parts). */
  maxKept: number;
  evaluated: number;
}

const NO_SLOT: RankingSlot = Object.freeze({ start: 0, end: 0, timezone: 'UTC' });

/**
 * createRankingContext fixes the scoring rules of one ranking (CONTRACT part 4, SPEC 4.5): rankOptions uses it over
 * all candidates, and a resolution uses it over the few providers whose bound can still beat the options found.
 */
export function createRankingContext(input: RankingContextInput): RankingContext {
  const { preferences, policy, perProvider, limit, earliest, minWorkload, maxWorkload } = input;
  const weights = policy.weights;
  const wantedLanguages = lowerSet(preferences.languageCodes);
  const wantedSpecialties = lowerSet(preferences.specialtyCodes);
  const wantedLocation = preferences.location?.trim().toLowerCase() ?? '';
  const wantedDayParts = new Set(preferences.dayParts ?? []);
  const judgeDayParts = wantedDayParts.size > 0 && weights.preferredDayPart > 0;
  const earliestRequested = preferences.earliestAvailable === true;
  const span = input.windowEnd - earliest;
  // Bounds add the same finite points as scores; a non-finite weight would make scores incomparable.
  const boundsHold = WEIGHT_KEYS.every((k) => Number.isFinite(weights[k]));

  const providerPoints = (
    p: Pick<RankingProvider, 'languageCodes' | 'specialtyCodes' | 'location'>,
    w: number,
    hasContinuity: boolean,
  ): ProviderPoints => {
    const language =
      wantedLanguages.size > 0 && p.languageCodes.some((l) => wantedLanguages.has(l.toLowerCase()))
        ? weights.preferredLanguage
        : 0;
    const continuity = hasContinuity ? weights.providerContinuity : 0;
    // All providers equally loaded (an idle network included): none is favoured over another, each gets the full weight.
    const workload =
      maxWorkload === minWorkload ? weights.workloadBalance : round2(weights.workloadBalance * (1 - w / maxWorkload));
    const location =
      wantedLocation !== '' && (p.location ?? '').toLowerCase().includes(wantedLocation)
        ? weights.preferredLocation
        : 0;
    const specialty =
      wantedSpecialties.size > 0 && p.specialtyCodes.some((s) => wantedSpecialties.has(s.toLowerCase()))
        ? PREFERRED_SPECIALTY_POINTS
        : 0;
    return {
      language,
      continuity,
      workload,
      location,
      specialty,
      total: language + continuity + workload + location + specialty,
    };
  };

  const dayPartPointsOf = (slot: RankingSlot, provider: RankingProvider): number => {
    if (!judgeDayParts) return 0;
    const part = judgedDayPart(slot.start, slot.timezone, provider.timezone, preferences.timezone);
    return part !== undefined && wantedDayParts.has(part) ? weights.preferredDayPart : 0;
  };

  const earliestPointsOf = (start: number): number => {
    if (!earliestRequested) return 0;
    if (start <= earliest) return weights.earliestAvailable;
    if (span <= 0) return 0;
    const share = 1 - (start - earliest) / span;
    return round2(weights.earliestAvailable * Math.min(1, Math.max(0, share)));
  };

  // The most EARLIEST_AVAILABLE points of a slot starting at or after `lowestStart`. They fall with the start for a
  // weight >= 0 (a later slot's rounded share never exceeds the rounded weight) and are never above 0 for a negative one.
  const earliestPointsBound = (lowestStart: number): number => {
    if (!earliestRequested) return 0;
    const w = weights.earliestAvailable;
    if (!(w >= 0)) return 0;
    return lowestStart <= earliest ? Math.max(w, round2(w)) : earliestPointsOf(lowestStart);
  };

  // Rounding and float addition are monotone, so a sum of larger parts never scores less.
  const scoreOf = (points: ProviderPoints, dayPartPoints: number, earliestPoints: number): number =>
    round2(points.total + dayPartPoints + earliestPoints);

  const compare = makeComparator(policy.tieBreakers);
  const best: ScoredSlot[] = [];

  return {
    limit,
    compare,
    providerPoints,
    addCandidate(top, c, pts) {
      const density = availabilityDensity(c.slots.length, c.evaluatedSlotCount);
      const workload = workloadOf(c.workload);
      best.length = 0;
      for (const slot of c.slots) {
        const dayPartPoints = dayPartPointsOf(slot, c.provider);
        const earliestPoints = earliestPointsOf(slot.start);
        const score = scoreOf(pts, dayPartPoints, earliestPoints);
        // Within one provider the full order reduces to score desc, then start, then end: skip losers before allocating.
        const worst = best.length >= perProvider ? best[best.length - 1] : undefined;
        if (
          worst &&
          (score < worst.score ||
            (score === worst.score &&
              (slot.start > worst.start || (slot.start === worst.start && slot.end >= worst.end))))
        )
          continue;
        const scored: ScoredSlot = {
          providerId: c.provider.id,
          start: slot.start,
          end: slot.end,
          slot,
          score,
          density,
          workload,
          dayPartPoints,
          earliestPoints,
          points: pts,
        };
        insertBounded(best, scored, perProvider, compare);
      }
      for (const s of best) insertBounded(top, s, limit, compare);
    },
    boundOf(b) {
      if (!boundsHold) return undefined;
      const density = availabilityDensity(Math.min(b.maxKept, b.evaluated), b.evaluated);
      // Slots without day-part points, and (when some may have them) slots with the weight's points from preferredFrom on.
      const without = boundTuple(b, density, 0, b.lowestStart, earliestPointsBound(b.lowestStart), scoreOf);
      if (!judgeDayParts || b.preferredFrom === Infinity) return without;
      const start = Math.max(b.lowestStart, b.preferredFrom);
      const withPart = boundTuple(b, density, weights.preferredDayPart, start, earliestPointsBound(start), scoreOf);
      return compare(withPart, without) <= 0 ? withPart : without;
    },
    toOptions(top) {
      return top.map((s, i) => {
        const pts = s.points;
        const factors: RankingFactor[] = [];
        if (pts.language > 0) factors.push({ code: 'PREFERRED_LANGUAGE', points: pts.language });
        if (s.dayPartPoints > 0) factors.push({ code: 'PREFERRED_DAY_PART', points: s.dayPartPoints });
        if (earliestRequested) factors.push({ code: 'EARLIEST_AVAILABLE', points: s.earliestPoints });
        if (pts.continuity > 0) factors.push({ code: 'PROVIDER_CONTINUITY', points: pts.continuity });
        if (pts.workload > 0) factors.push({ code: 'WORKLOAD_BALANCE', points: pts.workload });
        if (pts.location > 0) factors.push({ code: 'PREFERRED_LOCATION', points: pts.location });
        if (pts.specialty > 0) factors.push({ code: 'PREFERRED_SPECIALTY', points: pts.specialty });
        return {
          rank: i + 1,
          providerId: s.providerId,
          slot: { start: s.slot.start, end: s.slot.end, timezone: s.slot.timezone },
          score: s.score,
          rankingFactors: factors,
          availabilityDensity: s.density,
          workload: s.workload,
          isEarliestOpening: s.start === earliest,
        };
      });
    },
  };
}

// A bound as a scored slot; a slot ends after it starts, so the lowest start is below every end too. (A plain
// function: a closure made per call would cost more than the bound.)
function boundTuple(
  b: ProviderBoundInput,
  density: number,
  dayPartPoints: number,
  start: number,
  earliestPoints: number,
  scoreOf: (points: ProviderPoints, dayPartPoints: number, earliestPoints: number) => number,
): ScoredSlot {
  const score = scoreOf(b.points, dayPartPoints, earliestPoints);
  return {
    providerId: b.providerId,
    start,
    end: start,
    slot: NO_SLOT,
    score,
    density,
    workload: b.workload,
    dayPartPoints,
    earliestPoints,
    points: b.points,
  };
}

function makeComparator(tieBreakers: readonly TieBreaker[]): (a: ScoredSlot, b: ScoredSlot) => number {
  return (a, b) => {
    if (a.score !== b.score) return b.score - a.score;
    if (a.density !== b.density) return b.density - a.density;
    for (const tb of tieBreakers) {
      const d =
        tb === 'earliest_start'
          ? a.start - b.start
          : tb === 'lowest_workload'
            ? a.workload - b.workload
            : compareIds(a.providerId, b.providerId);
      if (d !== 0) return d;
    }
    if (a.start !== b.start) return a.start - b.start;
    const byId = compareIds(a.providerId, b.providerId);
    if (byId !== 0) return byId;
    return a.end - b.end;
  };
}

// Code-unit order, not localeCompare: the same on every machine and locale.
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The day part PREFERRED_DAY_PART judges a slot by: its local time in the preferences' timezone, else in the slot's,
 * else in the provider's, else in UTC (the first of them that is a valid zone).
 */
export function judgedDayPart(
  start: number,
  slotTimezone: string,
  providerTimezone: string | undefined,
  preferencesTimezone: string | undefined,
): DayPart | undefined {
  const readMinute = sharedMinuteOfDayReader;
  const minute =
    (preferencesTimezone !== undefined ? readMinute(start, preferencesTimezone) : undefined) ??
    readMinute(start, slotTimezone) ??
    (providerTimezone !== undefined ? readMinute(start, providerTimezone) : undefined) ??
    readMinute(start, 'UTC');
  return minute === undefined ? undefined : dayPartOfMinute(minute);
}

/** A candidate's workload as ranking reads it: a finite positive number, else 0. */
export function workloadOf(workload: number): number {
  return Number.isFinite(workload) && workload > 0 ? workload : 0;
}

/** availabilityDensity: the free share of a provider's evaluated slots (0..1, 4 decimals); `evaluated` defaults to `kept`. */
export function availabilityDensity(kept: number, evaluatedSlotCount: number | undefined): number {
  const evaluated = evaluatedSlotCount ?? kept;
  if (!(evaluated > 0)) return 0;
  return Math.round(Math.min(1, kept / evaluated) * 10_000) / 10_000;
}

function lowerSet(values: readonly string[] | undefined): Set<string> {
  return new Set((values ?? []).map((v) => v.toLowerCase()));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
