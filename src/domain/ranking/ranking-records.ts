/** The records ranking reads (providers, free slots, candidates, preferences) and writes (ranked options). */
import type { DayPart } from './day-part.js';
import type { RankingFactor } from './ranking-factor.js';

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
