/** Exclusion codes in pipeline order (CONTRACT part 4); a provider's exclusions are always listed in this order. */
export const EXCLUSION_CODES = [
  'PROVIDER_INACTIVE',
  'NOT_SEARCHABLE',
  'SERVICE_NOT_OFFERED',
  'PROFESSION_MISMATCH',
  'SPECIALTY_MISMATCH',
  'AGE_GROUP_MISMATCH',
  'MODALITY_MISMATCH',
  'SERVICE_REGION_MISMATCH',
  'LICENSE_REGION_MISMATCH',
  'LICENSE_EXPIRED',
  'LICENSE_UNVERIFIED',
  'LICENSE_MISSING',
  'INSURANCE_NOT_ACCEPTED',
  'PANEL_FULL',
  'LANGUAGE_MISMATCH',
  'NOT_ACCEPTING_NEW_CLIENTS',
  // Added by the availability step, never by eligibility.
  'NO_VERIFIED_AVAILABILITY',
] as const;

/** A reason a provider is excluded from options (failed or unknown). */
export type ExclusionCode = (typeof EXCLUSION_CODES)[number];

/** Codes the license-region step can give. */
export type LicenseExclusionCode =
  | 'LICENSE_REGION_MISMATCH'
  | 'LICENSE_EXPIRED'
  | 'LICENSE_UNVERIFIED'
  | 'LICENSE_MISSING';

/** Codes of constraints a provider met (CONTRACT part 4). */
export type MatchedConstraintCode =
  | 'LANGUAGE_MATCH'
  | 'MODALITY_MATCH'
  | 'INSURANCE_MATCH'
  | 'LICENSE_REGION_MATCH'
  | 'SPECIALTY_MATCH'
  | 'PROFESSION_MATCH'
  | 'AGE_GROUP_MATCH'
  | 'SERVICE_REGION_MATCH'
  | 'ACCEPTS_NEW_CLIENTS_MATCH';

const ORDER: ReadonlyMap<string, number> = new Map(EXCLUSION_CODES.map((code, i) => [code, i]));

/** Position of an exclusion code in the pipeline (0 first); unknown codes sort last. */
export function exclusionCodeOrder(code: string): number {
  return ORDER.get(code) ?? EXCLUSION_CODES.length;
}
