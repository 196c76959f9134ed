import type { z } from 'zod';
import type { CreateResolutionBody } from '../../contract/schemas/resolution.js';
import type { EligibilityRequest } from '../../domain/eligibility.js';
import type { ResolutionRequest } from './resolution-request.js';

/** Maps a validated v2 body onto the resolution request. */
export function resolutionRequestOfV2(b: z.output<typeof CreateResolutionBody>): ResolutionRequest {
  const c = b.constraints ?? {};
  const constraints: EligibilityRequest = {
    languageCodes: c.languageCodes?.anyOf,
    modalityCodes: c.modalityCodes?.anyOf,
    licenseRegionCodes: c.licenseRegionCodes?.anyOf,
    insurancePlanCodes: c.insurancePlanCodes?.anyOf,
    ageGroupCodes: c.ageGroupCodes?.anyOf,
    specialtyCodes: c.specialtyCodes?.anyOf,
    professionCodes: c.professionCodes?.anyOf,
    serviceRegionCodes: c.serviceRegionCodes?.anyOf,
    acceptsNewClients: c.acceptsNewClients,
  };
  return {
    service: b.serviceId,
    acceptSlug: false,
    constraints,
    preferences: b.preferences ?? {},
    dateRange: b.dateRange,
    policyId: b.policyId,
    maxOptionsPerProvider: b.maxOptionsPerProvider ?? 3,
  };
}
