import { EXCLUSION_CODES, exclusionCodeOrder } from './exclusion-codes.js';
import type { ExclusionCode } from './exclusion-codes.js';
import type { ProviderEligibility } from './provider-eligibility.js';

/** Counts of one resolution's eligibility verdicts. */
export interface EligibilitySummary {
  providersScanned: number;
  /** Providers passing every hard constraint (SPEC steps 1-12). */
  eligibleProviders: number;
  excludedProviders: number;
  unknownProviders: number;
  /** Each excluded or unknown provider counted once, under its first code in pipeline order; keys in pipeline order. */
  exclusionSummary: Partial<Record<ExclusionCode, number>>;
}

/** Summarizes verdicts into counts and the exclusion summary. */
export function summarizeEligibility(results: readonly ProviderEligibility[]): EligibilitySummary {
  const counts = new Array<number>(EXCLUSION_CODES.length).fill(0);
  let eligible = 0;
  let excluded = 0;
  let unknown = 0;
  for (const r of results) {
    if (r.status === 'matched') eligible++;
    else if (r.status === 'excluded') excluded++;
    else unknown++;
    if (r.firstExclusionCode !== null) counts[exclusionCodeOrder(r.firstExclusionCode)]!++;
  }
  const exclusionSummary: Partial<Record<ExclusionCode, number>> = {};
  EXCLUSION_CODES.forEach((code, i) => {
    if (counts[i]! > 0) exclusionSummary[code] = counts[i]!;
  });
  return {
    providersScanned: results.length,
    eligibleProviders: eligible,
    excludedProviders: excluded,
    unknownProviders: unknown,
    exclusionSummary,
  };
}
