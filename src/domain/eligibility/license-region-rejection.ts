import type { CompiledEligibilityRequest } from './eligibility-request.js';
import { exclusionCodeOrder } from './exclusion-codes.js';
import type { ProviderEligibility } from './provider-eligibility.js';

const LICENSE_STEP = exclusionCodeOrder('LICENSE_REGION_MISMATCH');

/**
 * Whether a provider reached the license step: it has no exclusion, failed or unknown, from any earlier step
 * (active and searchable, service, profession, specialty, age group, modality, service region).
 */
export function reachedLicenseStep(result: ProviderEligibility): boolean {
  const first = result.exclusions[0];
  return first === undefined || exclusionCodeOrder(first.code) >= LICENSE_STEP;
}

/**
 * Whether the resolution must answer 422 LICENSE_REGION_MISMATCH (CONTRACT part 4): `licenseRegionCodes` was requested,
 * at least one provider reached the license step, and none of those matched on it. When no provider reached the step,
 * an earlier constraint explains the empty answer, so it is a zero-result instead.
 */
export function isLicenseRegionRejection(
  c: CompiledEligibilityRequest,
  results: readonly ProviderEligibility[],
): boolean {
  if (c.licenseRegionCodes === undefined) return false;
  let reached = false;
  for (const r of results) {
    if (!reachedLicenseStep(r)) continue;
    reached = true;
    if (r.matchedConstraints.some((m) => m.code === 'LICENSE_REGION_MATCH')) return false;
  }
  return reached;
}
