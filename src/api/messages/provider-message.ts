import type { ProviderView } from '../../persistence/provider-repository.js';
import { ProviderStatus, type Professional, type Provider } from '../../gen/scheduling/v1/resources.js';

/** A provider status as the typed API names it. */
export const PROVIDER_STATUS_VIEW: Record<ProviderView['status'], ProviderStatus> = {
  active: ProviderStatus.PROVIDER_STATUS_ACTIVE,
  inactive: ProviderStatus.PROVIDER_STATUS_INACTIVE,
  suspended: ProviderStatus.PROVIDER_STATUS_SUSPENDED,
};

/** A stored nullable value as a message field: null is an unset field. */
const unsetIfNull = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

/** The `Provider` message of a provider (CONTRACT part 3): every field, a null as an unset field. */
export function providerMessage(p: ProviderView): Provider {
  return {
    id: p.id,
    organizationId: p.organizationId,
    externalId: p.externalId,
    displayName: p.displayName,
    email: unsetIfNull(p.email),
    providerStatus: PROVIDER_STATUS_VIEW[p.status],
    searchable: p.searchable,
    professionCode: unsetIfNull(p.professionCode),
    specialtyCodes: [...p.specialtyCodes],
    languageCodes: [...p.languageCodes],
    modalityCodes: [...p.modalityCodes],
    serviceRegionCodes: [...p.serviceRegionCodes],
    insurancePlanCodes: [...p.insurancePlanCodes],
    ageGroupCodes: [...p.ageGroupCodes],
    licenseRecords: p.licenseRecords.map((l) => ({
      licenseTypeCode: l.licenseTypeCode,
      regionCode: l.regionCode,
      status: l.status,
      expiresAt: unsetIfNull(l.expiresAt),
      verifiedAt: unsetIfNull(l.verifiedAt),
    })),
    acceptsNewClients: unsetIfNull(p.acceptsNewClients),
    timezone: unsetIfNull(p.timezone),
    bio: unsetIfNull(p.bio),
    username: unsetIfNull(p.username),
    location: unsetIfNull(p.location),
    panelCapacity: unsetIfNull(p.panelCapacity),
    panelCurrentCount: unsetIfNull(p.panelCurrentCount),
    profileVersion: p.profileVersion,
    createdAt: new Date(p.createdAt),
    updatedAt: new Date(p.updatedAt),
  };
}

/** The v1 `Professional` message of a provider: the same data under v1 names (SPEC part 9, CONTRACT part 3). */
export function professionalMessage(p: ProviderView): Professional {
  return {
    id: p.id,
    externalId: p.externalId,
    name: p.displayName,
    email: unsetIfNull(p.email),
    username: unsetIfNull(p.username),
    status: p.status,
    searchable: p.searchable,
    profession: unsetIfNull(p.professionCode),
    specialty: [...p.specialtyCodes],
    languages: [...p.languageCodes],
    modality: [...p.modalityCodes],
    insurance: [...p.insurancePlanCodes],
    serviceRegions: [...p.serviceRegionCodes],
    ageGroups: [...p.ageGroupCodes],
    acceptsNewClients: unsetIfNull(p.acceptsNewClients),
    timezone: unsetIfNull(p.timezone),
    bio: unsetIfNull(p.bio),
    location: unsetIfNull(p.location),
    profileVersion: p.profileVersion,
  };
}
