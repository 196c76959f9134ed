/** Ranks hypothetical candidates with a policy working copy (POST /api/v2/ranking-policies/:id/simulate). */
import type { DayPart } from './day-part.js';
import { MAX_OPTIONS_PER_PROVIDER, rankOptions, type RankingCandidate } from './rank-options.js';
import type { RankingFactor } from './ranking-factor.js';
import type { RankingPolicy } from './ranking-policy.js';

/** One simulated candidate: a provider and one slot start (ISO 8601 timestamp or epoch ms). */
export interface SimulationCandidate {
  providerId: string;
  displayName: string;
  languageCodes: readonly string[];
  slotStart: string | number;
}

/** Preferences a simulation takes (SPEC 4.5 names languageCodes and dayParts; the rest are optional extras). */
export interface SimulationPreferences {
  languageCodes?: readonly string[] | undefined;
  dayParts?: readonly DayPart[] | undefined;
  earliestAvailable?: boolean | undefined;
  /** Day parts are judged here; else in the offset written in each slotStart (UTC for `Z`). */
  timezone?: string | undefined;
}

/** One row of a simulation's answer. */
export interface SimulatedRank {
  rank: number;
  providerId: string;
  displayName: string;
  /** As given in the candidate. */
  slotStart: string | number;
  score: number;
  rankingFactors: RankingFactor[];
}

/** Search window a simulation assumes for EARLIEST_AVAILABLE: the longest resolution window (14 days). */
export const SIMULATION_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

const OFFSET_AT_END = /(Z|[+-]\d{2}:\d{2})$/i;

/**
 * simulate ranks every candidate row as a resolution would: rows of one provider are that provider's slots (its best
 * 10 are kept, the maximum of maxOptionsPerProvider), every other row is returned; workloads are equal and no
 * client history exists, so WORKLOAD_BALANCE is the same for all and PROVIDER_CONTINUITY never applies.
 * Throws a RangeError naming the row when a slotStart is not a timestamp.
 */
export function simulate(
  policy: Pick<RankingPolicy, 'weights' | 'tieBreakers'>,
  candidates: readonly SimulationCandidate[],
  preferences: SimulationPreferences,
): { ranked: SimulatedRank[] } {
  const byProvider = new Map<
    string,
    { candidate: RankingCandidate & { slots: RankingCandidate['slots'][number][] }; languages: Set<string> }
  >();
  const rows = new Map<string, SimulationCandidate>();
  candidates.forEach((row, i) => {
    const { epochMs, timezone } = parseSlotStart(row.slotStart, i);
    let entry = byProvider.get(row.providerId);
    if (!entry) {
      entry = {
        candidate: {
          provider: { id: row.providerId, displayName: row.displayName, languageCodes: [], specialtyCodes: [] },
          slots: [],
          workload: 0,
          continuity: false,
        },
        languages: new Set(),
      };
      byProvider.set(row.providerId, entry);
    }
    for (const l of row.languageCodes) entry.languages.add(l);
    entry.candidate.slots.push({ start: epochMs, end: epochMs, timezone });
    const key = rowKey(row.providerId, epochMs);
    if (!rows.has(key)) rows.set(key, row);
  });
  if (byProvider.size === 0) return { ranked: [] };

  let earliest = Infinity;
  const rankingCandidates: RankingCandidate[] = [];
  for (const { candidate, languages } of byProvider.values()) {
    for (const s of candidate.slots) earliest = Math.min(earliest, s.start);
    rankingCandidates.push({ ...candidate, provider: { ...candidate.provider, languageCodes: [...languages] } });
  }

  const options = rankOptions({
    candidates: rankingCandidates,
    preferences: {
      languageCodes: preferences.languageCodes,
      dayParts: preferences.dayParts,
      earliestAvailable: preferences.earliestAvailable,
      timezone: preferences.timezone,
    },
    policy,
    maxOptionsPerProvider: MAX_OPTIONS_PER_PROVIDER.max,
    limit: candidates.length,
    windowEnd: earliest + SIMULATION_WINDOW_MS,
  });
  return {
    ranked: options.map((o) => {
      const row = rows.get(rowKey(o.providerId, o.slot.start)) as SimulationCandidate;
      return {
        rank: o.rank,
        providerId: o.providerId,
        displayName: row.displayName,
        slotStart: row.slotStart,
        score: o.score,
        rankingFactors: o.rankingFactors,
      };
    }),
  };
}

function rowKey(providerId: string, epochMs: number): string {
  return `${providerId}\u0000${epochMs}`;
}

function parseSlotStart(value: string | number, index: number): { epochMs: number; timezone: string } {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return { epochMs: value, timezone: 'UTC' };
  } else {
    const offset = OFFSET_AT_END.exec(value)?.[1];
    // A timestamp without an offset would be read in the machine's own timezone; read it as UTC instead.
    const epochMs = Date.parse(offset === undefined && value.includes('T') ? `${value}Z` : value);
    if (Number.isFinite(epochMs))
      return { epochMs, timezone: offset === undefined || offset.toUpperCase() === 'Z' ? 'UTC' : offset };
  }
  throw new RangeError(`candidates.${index}.slotStart: ${JSON.stringify(value)} is not an ISO 8601 timestamp`);
}
