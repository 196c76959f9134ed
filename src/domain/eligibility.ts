/** The resolution eligibility pipeline (SPEC part 4 "Eligibility rules applied in resolution", CONTRACT part 4). */
export { EXCLUSION_CODES, exclusionCodeOrder } from './eligibility/exclusion-codes.js';
export type { ExclusionCode, LicenseExclusionCode, MatchedConstraintCode } from './eligibility/exclusion-codes.js';
export {
  compileEligibilityRequest,
  LICENSE_EXPIRY_WARNING_DAYS,
  LICENSE_VERIFICATION_MAX_AGE_DAYS,
} from './eligibility/eligibility-request.js';
export type {
  AnyOfConstraint,
  CompiledEligibilityRequest,
  EligibilityClock,
  EligibilityRequest,
} from './eligibility/eligibility-request.js';
export type {
  ConstraintExclusion,
  ConstraintValue,
  EligibilityStatus,
  EligibilityWarning,
  MatchedConstraint,
  ProviderEligibility,
  SourceStatus,
} from './eligibility/provider-eligibility.js';
export { evaluateLicenseRegion, licenseSourceStatus } from './eligibility/evaluate-license-region.js';
export type { LicenseRegionOutcome } from './eligibility/evaluate-license-region.js';
export { evaluateProvider, evaluateProviders } from './eligibility/evaluate-provider.js';
export { summarizeEligibility } from './eligibility/summarize-eligibility.js';
export type { EligibilitySummary } from './eligibility/summarize-eligibility.js';
export { isLicenseRegionRejection, reachedLicenseStep } from './eligibility/license-region-rejection.js';
