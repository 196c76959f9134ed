import type { EligibilityRequest } from '../../domain/eligibility.js';
import type { ResolutionDemand } from '../../persistence/resolution-demand.js';

const DAY_MS = 24 * 3600 * 1000;

/** Each network-adequacy dimension and the constraint list it reads (CONTRACT part 8). */
const DIMENSION_CONSTRAINTS = [
  ['language', 'languageCodes'],
  ['license_region', 'licenseRegionCodes'],
  ['insurance', 'insurancePlanCodes'],
  ['specialty', 'specialtyCodes'],
  ['modality', 'modalityCodes'],
] as const satisfies readonly (readonly [string, keyof EligibilityRequest])[];

/**
 * What a resolution made at `createdAt` asked for and how it ended, for network adequacy: each value its constraints
 * named, the days to its earliest option's start (`optionStarts`, epoch ms; null without options) and its
 * exclusionSummary.
 */
export function resolutionDemandOf(
  constraints: EligibilityRequest,
  optionStarts: readonly number[],
  exclusions: Readonly<Partial<Record<string, number>>>,
  createdAt: Date,
): ResolutionDemand {
  const values: { dimension: string; value: string }[] = [];
  for (const [dimension, field] of DIMENSION_CONSTRAINTS)
    for (const value of new Set(constraints[field] ?? [])) values.push({ dimension, value });
  const first = optionStarts.length > 0 ? Math.min(...optionStarts) : undefined;
  const counts: Record<string, number> = {};
  for (const [code, n] of Object.entries(exclusions)) if (n) counts[code] = n;
  return {
    values,
    daysToFirstOption: first === undefined ? null : Math.max(0, first - createdAt.getTime()) / DAY_MS,
    exclusions: counts,
  };
}
