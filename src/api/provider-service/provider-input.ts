import type { z } from 'zod';
import type { CreateProviderRequest, UpdateProviderRequest } from '../../gen/scheduling/v1/provider_service.js';
import {
  LicenseRecordInput_Status,
  ProviderStatus,
  type LicenseRecordInput,
} from '../../gen/scheduling/v1/resources.js';
import { CreateProviderBody, UpdateProviderBody } from '../../contract/schemas/provider.js';
import type { ProviderView } from '../../persistence/provider-repository.js';
import { given, type RequestProblems } from '../request-problems.js';

/** A validated create body, as the application's provider writers take it. */
export type CreateProviderInput = z.output<typeof CreateProviderBody>;
/** A validated partial update (a null clears a field), as the application's provider writers take it. */
export type UpdateProviderInput = z.output<typeof UpdateProviderBody>;

/** The provider fields a create or update writes, by their REST names, in the contract's order. */
type WritableField = keyof CreateProviderInput & keyof UpdateProviderInput;
const WRITABLE: readonly WritableField[] = [
  'externalId',
  'displayName',
  'email',
  'status',
  'searchable',
  'professionCode',
  'profession',
  'specialtyCodes',
  'languageCodes',
  'modalityCodes',
  'serviceRegionCodes',
  'insurancePlanCodes',
  'ageGroupCodes',
  'licenseRecords',
  'acceptsNewClients',
  'timezone',
  'bio',
  'username',
  'location',
  'panelCapacity',
  'panelCurrentCount',
];

/** A provider status a request names; UNSPECIFIED is not given. */
const PROVIDER_STATUS_OF: Partial<Record<ProviderStatus, ProviderView['status']>> = {
  [ProviderStatus.PROVIDER_STATUS_ACTIVE]: 'active',
  [ProviderStatus.PROVIDER_STATUS_INACTIVE]: 'inactive',
  [ProviderStatus.PROVIDER_STATUS_SUSPENDED]: 'suspended',
};

/** A license record status a request names; UNSPECIFIED is not given. */
const LICENSE_STATUS_OF: Partial<Record<LicenseRecordInput_Status, string>> = {
  [LicenseRecordInput_Status.STATUS_ACTIVE]: 'active',
  [LicenseRecordInput_Status.STATUS_INACTIVE]: 'inactive',
  [LicenseRecordInput_Status.STATUS_EXPIRED]: 'expired',
  [LicenseRecordInput_Status.STATUS_REVOKED]: 'revoked',
  [LicenseRecordInput_Status.STATUS_PENDING]: 'pending',
};

/**
 * The value of an enum field for its REST rule: the REST value it names, undefined when not given, and a value no
 * REST value is (the enum's own name) when it is none of them, so that the rule refuses it in the contract's words.
 */
function enumValue<E extends string>(value: E | undefined, table: Partial<Record<E, string>>, unspecified: E) {
  if (value === undefined || value === unspecified) return undefined;
  return table[value] ?? value;
}

/** A license record of a request as its REST rule reads it (`verifiedAt` as an ISO 8601 instant). */
function licenseRecordValue(l: LicenseRecordInput): Record<string, unknown> {
  const v: Record<string, unknown> = {
    licenseTypeCode: given(l.licenseTypeCode),
    regionCode: given(l.regionCode),
    status: enumValue(l.status, LICENSE_STATUS_OF, LicenseRecordInput_Status.STATUS_UNSPECIFIED),
  };
  if (l.expiresAt !== undefined) v.expiresAt = l.expiresAt;
  if (l.verifiedAt !== undefined) v.verifiedAt = l.verifiedAt.toISOString();
  return v;
}

/** Each writable field of a create or update request as its REST rule reads it (undefined: not given). */
function writableValues(r: CreateProviderRequest | UpdateProviderRequest): Record<WritableField, unknown> {
  return {
    externalId: r.externalId,
    displayName: r.displayName,
    email: r.email,
    status: enumValue(r.providerStatus, PROVIDER_STATUS_OF, ProviderStatus.PROVIDER_STATUS_UNSPECIFIED),
    searchable: r.searchable,
    professionCode: r.professionCode,
    profession: r.profession,
    specialtyCodes: r.specialtyCodes,
    languageCodes: r.languageCodes,
    modalityCodes: r.modalityCodes,
    serviceRegionCodes: r.serviceRegionCodes,
    insurancePlanCodes: r.insurancePlanCodes,
    ageGroupCodes: r.ageGroupCodes,
    licenseRecords: r.licenseRecords?.map(licenseRecordValue),
    acceptsNewClients: r.acceptsNewClients,
    timezone: r.timezone,
    bio: r.bio,
    username: r.username,
    location: r.location,
    panelCapacity: r.panelCapacity,
    panelCurrentCount: r.panelCurrentCount,
  };
}

/**
 * Reads a CreateProvider request, judging each field with the contract's rule (`externalId` and `displayName` are
 * required; codes are normalized and deduplicated) into `problems`, named as REST names them (`status`,
 * `licenseRecords.0.regionCode`).
 */
export function readCreateProvider(problems: RequestProblems, request: CreateProviderRequest): CreateProviderInput {
  const values = writableValues(request);
  // Required text without presence: '' is not given.
  values.externalId = given(request.externalId);
  values.displayName = given(request.displayName);
  const out: Record<string, unknown> = {};
  for (const key of WRITABLE) {
    const v = problems.check<unknown>(key, CreateProviderBody.shape[key], values[key]);
    if (v !== undefined) out[key] = v;
  }
  return out as CreateProviderInput;
}

/** The message property each writable field travels in (`status` in `provider_status`). */
const PROPERTY_OF: Record<WritableField, keyof UpdateProviderRequest> = {
  ...(Object.fromEntries(WRITABLE.map((k) => [k, k])) as Record<WritableField, keyof UpdateProviderRequest>),
  status: 'providerStatus',
};
/** What an UpdateProvider `update_mask` may name: the message properties of the writable fields. */
export const UPDATABLE_PROVIDER_FIELDS = WRITABLE.map((k) => PROPERTY_OF[k]);

/** The fields of an UpdateProvider request that are set (an enum: not UNSPECIFIED; a list: when it has an item). */
export function updatedFields(request: UpdateProviderRequest): Record<keyof UpdateProviderRequest, boolean> {
  const values = writableValues(request);
  const set: Record<string, boolean> = {};
  for (const key of WRITABLE) {
    const v = values[key];
    set[PROPERTY_OF[key]] = Array.isArray(v) ? v.length > 0 : v !== undefined;
  }
  return set;
}

/**
 * Reads the fields of an UpdateProvider request that its mask names (`named`: message properties), judging each with
 * the contract's rule into `problems`: a named field left unset is a REST `null`, which clears a field that may be
 * cleared and is refused on the others in the contract's words; a named list left empty is cleared.
 */
export function readProviderUpdate(
  problems: RequestProblems,
  request: UpdateProviderRequest,
  named: ReadonlySet<string>,
): UpdateProviderInput {
  const values = writableValues(request);
  const out: Record<string, unknown> = {};
  for (const key of WRITABLE) {
    if (!named.has(PROPERTY_OF[key])) continue;
    const value = values[key] === undefined ? null : values[key];
    const v = problems.check<unknown>(key, UpdateProviderBody.shape[key], value);
    if (v !== undefined) out[key] = v;
  }
  return out as UpdateProviderInput;
}
