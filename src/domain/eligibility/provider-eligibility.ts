import type { ExclusionCode, MatchedConstraintCode } from './exclusion-codes.js';

/**
 * Where the provider value behind a constraint came from: `verified` (a license record verified within a year),
 * `stale` (verified over a year ago), `self_reported` (any other profile attribute, and unverified license records),
 * `missing` (the attribute is absent or empty).
 */
export type SourceStatus = 'verified' | 'self_reported' | 'stale' | 'missing';

/** Eligibility of one provider: `unknown` only when nothing failed but required data is missing. */
export type EligibilityStatus = 'matched' | 'excluded' | 'unknown';

/** A normalized value a constraint compares. */
export type ConstraintValue = string | number | boolean;

/** A constraint the provider failed (`actual`: all its values), or could not be judged on for lack of data (`actual`: []). */
export interface ConstraintExclusion {
  code: ExclusionCode;
  /** The constraint's name (`languageCodes`), or the provider field for always-applied rules (`status`, `panelCapacity`). */
  field: string;
  required: readonly ConstraintValue[];
  actual: readonly ConstraintValue[];
  sourceStatus: SourceStatus;
  status: 'failed' | 'unknown';
  /** A sentence naming what the values do not show (LICENSE_EXPIRED: the expiry date). */
  detail?: string | undefined;
}

/**
 * A requested constraint the provider met; `actual` holds all the provider's own values for the field (CONTRACT
 * part 4), `met` those that met it (for the option's reason; not part of the API shape).
 */
export interface MatchedConstraint {
  code: MatchedConstraintCode;
  field: string;
  status: 'matched';
  required: readonly ConstraintValue[];
  actual: readonly ConstraintValue[];
  sourceStatus: SourceStatus;
  met?: readonly ConstraintValue[] | undefined;
}

/** A license's last valid date (`expiresAt`, YYYY-MM-DD) and the region it is held in. */
export interface LicenseExpiry {
  regionCode: string;
  expiresAt: string;
}

/** Something worth telling the caller about a provider that does not exclude it. */
export interface EligibilityWarning {
  code: 'LICENSE_EXPIRING_SOON';
  message: string;
  providerId: string;
  field: string;
}

/** The eligibility verdict for one provider; arrays are in pipeline order, read-only, and may be shared. */
export interface ProviderEligibility {
  providerId: string;
  status: EligibilityStatus;
  exclusions: readonly ConstraintExclusion[];
  matchedConstraints: readonly MatchedConstraint[];
  warnings: readonly EligibilityWarning[];
  /**
   * The last date the matching license is valid (CONTRACT part 8: slots after it are not offered, and a slot within
   * 30 days of it carries LICENSE_EXPIRING_SOON); undefined when no license was requested, none matched, or one has no end.
   */
  licenseValidThrough?: LicenseExpiry | undefined;
  /** The first exclusion in pipeline order (failed or unknown), null when matched. */
  firstExclusionCode: ExclusionCode | null;
}
