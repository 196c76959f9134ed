// FROZEN ORACLE: the pre-top-k rankOptions (src/domain/ranking/rank-options.ts as of commit e094b55), copied verbatim
// except for import paths and this header; used by reference-compute-resolution.ts. Do not change it.
/** Ranks the free slots of eligible providers into at most `limit` options (CONTRACT part 4, SPEC 4.5). */
import { dayPartOfMinute, type DayPart } from '../../../src/domain/ranking/day-part.js';
import { insertBounded } from '../../../src/domain/ranking/insert-bounded.js';
import { sharedMinuteOfDayReader } from '../../../src/domain/ranking/local-minute-of-day.js';
import type { RankingFactor } from '../../../src/domain/ranking/ranking-factor.js';
import {
  PREFERRED_SPECIALTY_POINTS,
  type RankingPolicy,
  type TieBreaker,
} from '../../../src/domain/ranking/ranking-policy.js';

/** The provider data ranking looks at. */
export interface RankingProvider {
  id: string;
  displayName: string;
  languageCodes: readonly string[];
  specialtyCodes: readonly string[];
  location?: string | undefined;
  timezone?: string | undefined;
}

/** A free slot; times are epoch milliseconds, `timezone` an IANA name (or a fixed offset `±HH:MM`). */
export interface RankingSlot {
  start: number;
  end: number;
  timezone: string;
}

/** One eligible provider with its free slots in the window. */
export interface RankingCandidate {
  provider: RankingProvider;
  /** Free slots only; any order. */
  slots: readonly RankingSlot[];
  /**
   * Upcoming bookings (or any load measure); lower is better. WORKLOAD_BALANCE = weight * (1 - workload / max),
   * max taken over the candidates that have free slots; when all of those are equal each gets the full weight.
   */
  workload: number;
  /** The client has seen this provider before. */
  continuity: boolean;
  /**
   * Slots checked for this provider, free or busy; availabilityDensity = slots.length / evaluatedSlotCount.
   * @default slots.length (density 1 for a provider with free slots)
   */
  evaluatedSlotCount?: number | undefined;
}

/** Ranking preferences of a resolution request. */
export interface RankingPreferences {
  languageCodes?: readonly string[] | undefined;
  dayParts?: readonly DayPart[] | undefined;
  earliestAvailable?: boolean | undefined;
  location?: string | undefined;
  specialtyCodes?: readonly string[] | undefined;
  /** Day parts are judged in this timezone; else in the slot's, else the provider's, else UTC. */
  timezone?: string | undefined;
}

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

/** One ranked option. */
export interface RankedOption {
  /** 1 is best. */
  rank: number;
  providerId: string;
  slot: RankingSlot;
  /** Sum of the factors' points, rounded to 2 decimals. */
  score: number;
  /** Factors with points > 0, plus EARLIEST_AVAILABLE whenever it was requested (even at 0 points). */
  rankingFactors: RankingFactor[];
  /** Free share of the provider's evaluated slots (0..1, 4 decimals): the first tie-breaker after score, never points. */
  availabilityDensity: number;
  /** The provider's workload as given (the `lowest_workload` tie-breaker). */
  workload: number;
  /** The slot starts at the earliest free time among all candidates. */
  isEarliestOpening: boolean;
}

/** Default and bounds of maxOptionsPerProvider (CONTRACT part 4). */
export const MAX_OPTIONS_PER_PROVIDER = { default: 3, min: 1, max: 10 } as const;

/** Options a resolution returns at most (SPEC part 8). */
export const OPTIONS_LIMIT = 10;

interface Scored {
  providerId: string;
  start: number;
  end: number;
  slot: RankingSlot;
  score: number;
  density: number;
  workload: number;
  dayPartPoints: number;
  earliestPoints: number;
  providerIndex: number;
}

interface ProviderPoints {
  language: number;
  continuity: number;
  workload: number;
  location: number;
  specialty: number;
  total: number;
}

/**
 * rankOptions scores every free slot and returns the best options: score desc, then availability density desc,
 * then the policy's tie-breakers, then slot start, provider id and slot end, so the order never depends on input order.
 * Each provider keeps only its best `maxOptionsPerProvider` slots before a bounded top-`limit` selection.
 */
export function rankOptions(input: RankOptionsInput): RankedOption[] {
  const { candidates, preferences, policy } = input;
  const weights = policy.weights;
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
    const w = workloadOf(c);
    if (w > maxWorkload) maxWorkload = w;
    if (w < minWorkload) minWorkload = w;
    for (const s of c.slots) if (s.start < earliest) earliest = s.start;
  }
  if (earliest === Infinity) return [];

  const wantedLanguages = lowerSet(preferences.languageCodes);
  const wantedSpecialties = lowerSet(preferences.specialtyCodes);
  const wantedLocation = preferences.location?.trim().toLowerCase() ?? '';
  const wantedDayParts = new Set(preferences.dayParts ?? []);
  const judgeDayParts = wantedDayParts.size > 0 && weights.preferredDayPart > 0;
  const earliestRequested = preferences.earliestAvailable === true;
  const readMinute = sharedMinuteOfDayReader;
  const span = input.windowEnd - earliest;

  const pointsOf = (c: RankingCandidate): ProviderPoints => {
    const p = c.provider;
    const language =
      wantedLanguages.size > 0 && p.languageCodes.some((l) => wantedLanguages.has(l.toLowerCase()))
        ? weights.preferredLanguage
        : 0;
    const continuity = c.continuity ? weights.providerContinuity : 0;
    const w = workloadOf(c);
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
    const minute =
      (preferences.timezone !== undefined ? readMinute(slot.start, preferences.timezone) : undefined) ??
      readMinute(slot.start, slot.timezone) ??
      (provider.timezone !== undefined ? readMinute(slot.start, provider.timezone) : undefined) ??
      readMinute(slot.start, 'UTC');
    const part = minute === undefined ? undefined : dayPartOfMinute(minute);
    return part !== undefined && wantedDayParts.has(part) ? weights.preferredDayPart : 0;
  };

  const earliestPointsOf = (start: number): number => {
    if (!earliestRequested) return 0;
    if (start <= earliest) return weights.earliestAvailable;
    if (span <= 0) return 0;
    const share = 1 - (start - earliest) / span;
    return round2(weights.earliestAvailable * Math.min(1, Math.max(0, share)));
  };

  const compare = makeComparator(policy.tieBreakers);
  const top: Scored[] = [];
  const providerPoints: ProviderPoints[] = [];
  const best: Scored[] = [];

  candidates.forEach((c, providerIndex) => {
    if (c.slots.length === 0) return;
    const pts = pointsOf(c);
    providerPoints[providerIndex] = pts;
    const density = densityOf(c);
    const workload = workloadOf(c);
    best.length = 0;
    for (const slot of c.slots) {
      const dayPartPoints = dayPartPointsOf(slot, c.provider);
      const earliestPoints = earliestPointsOf(slot.start);
      const score = round2(pts.total + dayPartPoints + earliestPoints);
      // Within one provider the full order reduces to score desc, then start, then end: skip losers before allocating.
      const worst = best.length >= perProvider ? best[best.length - 1] : undefined;
      if (
        worst &&
        (score < worst.score ||
          (score === worst.score &&
            (slot.start > worst.start || (slot.start === worst.start && slot.end >= worst.end))))
      )
        continue;
      const scored: Scored = {
        providerId: c.provider.id,
        start: slot.start,
        end: slot.end,
        slot,
        score,
        density,
        workload,
        dayPartPoints,
        earliestPoints,
        providerIndex,
      };
      insertBounded(best, scored, perProvider, compare);
    }
    for (const s of best) insertBounded(top, s, limit, compare);
  });

  return top.map((s, i) => {
    const pts = providerPoints[s.providerIndex] as ProviderPoints;
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
}

function makeComparator(tieBreakers: readonly TieBreaker[]): (a: Scored, b: Scored) => number {
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

function workloadOf(c: RankingCandidate): number {
  return Number.isFinite(c.workload) && c.workload > 0 ? c.workload : 0;
}

function densityOf(c: RankingCandidate): number {
  const evaluated = c.evaluatedSlotCount ?? c.slots.length;
  if (!(evaluated > 0)) return 0;
  return Math.round(Math.min(1, c.slots.length / evaluated) * 10_000) / 10_000;
}

function lowerSet(values: readonly string[] | undefined): Set<string> {
  return new Set((values ?? []).map((v) => v.toLowerCase()));
}

function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
