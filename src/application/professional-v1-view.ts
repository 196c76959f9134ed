import type { ProviderView } from '../persistence/provider-repository.js';

/** The v1 "professional" view of a provider: the same data under v1 names (SPEC part 9, CONTRACT part 3). */
export function toProfessionalV1(p: ProviderView) {
  return {
    id: p.id,
    externalId: p.externalId,
    name: p.displayName,
    email: p.email,
    username: p.username,
    status: p.status,
    searchable: p.searchable,
    profession: p.professionCode,
    specialty: p.specialtyCodes,
    languages: p.languageCodes,
    modality: p.modalityCodes,
    insurance: p.insurancePlanCodes,
    serviceRegions: p.serviceRegionCodes,
    ageGroups: p.ageGroupCodes,
    acceptsNewClients: p.acceptsNewClients,
    timezone: p.timezone,
    bio: p.bio,
    location: p.location,
    profileVersion: p.profileVersion,
  };
}
