import { z } from 'zod';
import {
  cursor,
  ianaTimezone,
  instant,
  isoDate,
  isoTimestamp,
  list,
  name200,
  nonNegativeInt,
  pageLimit,
  queryBool,
  text,
} from '../fields.js';
import {
  normalizeCode,
  normalizeAgeGroupCode,
  normalizeInsurancePlan,
  normalizeLanguageCode,
  normalizeModalityCode,
  normalizeRegionCode,
} from '../../domain/normalize-codes.js';
import { normalizedCode } from '../normalized-code.js';
import { protoView } from '../proto-view.js';

/** A provider status. */
export const ProviderStatus = z.enum(['active', 'inactive', 'suspended']);

const code = () => normalizedCode(normalizeCode, 'code ([a-z0-9_], at most 64 characters)');
const language = () => normalizedCode(normalizeLanguageCode, 'ISO 639-1 language code');
const region = () => normalizedCode(normalizeRegionCode, 'region code such as US-CA');
const modality = () => normalizedCode(normalizeModalityCode, 'modality (virtual or in_person)');
const insurance = () => normalizedCode(normalizeInsurancePlan, 'insurance plan');
const ageGroup = () => normalizedCode(normalizeAgeGroupCode, 'age group (adult, adolescent, child, senior)');

/** Dedupes a normalized list, keeping first occurrences. */
const uniq = <T>(xs: T[]) => [...new Set(xs)];

/** A license record as sent (CONTRACT part 3). */
export const LicenseRecordInput = z.object({
  licenseTypeCode: code(),
  regionCode: region(),
  status: z.enum(['active', 'inactive', 'expired', 'revoked', 'pending']),
  expiresAt: isoDate().optional(),
  verifiedAt: isoTimestamp().optional(),
});

/** Provider fields that can be written (create, update, import rows). */
export const ProviderWritable = z.object({
  externalId: text(200, 1),
  displayName: name200(),
  email: z.email().max(1000).optional(),
  status: ProviderStatus.optional(),
  searchable: z.boolean().optional(),
  professionCode: code().optional(),
  /** v1 name of professionCode. */
  profession: code().optional(),
  specialtyCodes: list(code()).transform(uniq).optional(),
  languageCodes: list(language()).transform(uniq).optional(),
  modalityCodes: list(modality()).transform(uniq).optional(),
  serviceRegionCodes: list(region()).transform(uniq).optional(),
  insurancePlanCodes: list(insurance()).transform(uniq).optional(),
  ageGroupCodes: list(ageGroup()).transform(uniq).optional(),
  licenseRecords: list(LicenseRecordInput).optional(),
  acceptsNewClients: z.boolean().optional(),
  timezone: ianaTimezone().optional(),
  bio: text(5000).optional(),
  username: text(200).optional(),
  location: text(1000).optional(),
  panelCapacity: z.number().int().min(0).max(1_000_000).optional(),
  panelCurrentCount: z.number().int().min(0).max(1_000_000).optional(),
});

/** Body of POST /api/v2/providers. */
export const CreateProviderBody = ProviderWritable;

/** Body of PATCH /api/v2/providers/:id (every field optional; null clears an optional field). */
export const UpdateProviderBody = ProviderWritable.partial().extend({
  email: z.email().max(1000).nullable().optional(),
  professionCode: code().nullable().optional(),
  acceptsNewClients: z.boolean().nullable().optional(),
  timezone: ianaTimezone().nullable().optional(),
  bio: text(5000).nullable().optional(),
  username: text(200).nullable().optional(),
  location: text(1000).nullable().optional(),
  panelCapacity: z.number().int().min(0).max(1_000_000).nullable().optional(),
  panelCurrentCount: z.number().int().min(0).max(1_000_000).nullable().optional(),
});

/** A provider as answered. */
export const Provider = z.object({
  id: z.string(),
  organizationId: z.string(),
  externalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  status: ProviderStatus,
  searchable: z.boolean(),
  professionCode: z.string().nullable(),
  specialtyCodes: z.array(z.string()),
  languageCodes: z.array(z.string()),
  modalityCodes: z.array(z.string()),
  serviceRegionCodes: z.array(z.string()),
  insurancePlanCodes: z.array(z.string()),
  ageGroupCodes: z.array(z.string()),
  licenseRecords: z.array(
    z.object({
      licenseTypeCode: z.string(),
      regionCode: z.string(),
      status: z.string(),
      expiresAt: z.string().optional(),
      verifiedAt: z.string().optional(),
    }),
  ),
  acceptsNewClients: z.boolean().nullable(),
  timezone: z.string().nullable(),
  bio: z.string().nullable(),
  username: z.string().nullable(),
  location: z.string().nullable(),
  panelCapacity: nonNegativeInt().nullable(),
  panelCurrentCount: nonNegativeInt().nullable(),
  profileVersion: nonNegativeInt(),
  createdAt: instant(),
  updatedAt: instant(),
});

/**
 * A list filter on one code, as the typed API documents it: REST takes one code (`?specialtyCodes=anxiety`, no list),
 * and the provider matches when its list has it.
 */
const oneCode = <T extends z.ZodType>(rest: T, what: string, alias?: string) =>
  protoView(rest, {
    schema: z
      .string()
      .optional()
      .meta({
        description: `One ${what}: only providers whose list has it (one code, not a list).${alias ? ` Same as \`${alias}\`; when both are set, this one counts.` : ''}`,
      }),
  });

/** Query of GET /api/v2/providers (v2 field names; the short v1-style names are accepted too). */
export const ListProvidersQuery = z.object({
  status: ProviderStatus.optional(),
  searchable: queryBool().optional(),
  externalId: text(200, 1).optional(),
  specialtyCodes: oneCode(code().optional(), 'specialty code', 'specialty'),
  specialty: oneCode(code().optional(), 'specialty code (the v1 name)'),
  languageCodes: oneCode(language().optional(), 'language code (ISO 639-1)', 'language'),
  language: oneCode(language().optional(), 'language code (the v1 name)'),
  professionCode: oneCode(code().optional(), 'profession code', 'profession'),
  profession: oneCode(code().optional(), 'profession code (the v1 name)'),
  modalityCodes: oneCode(modality().optional(), 'modality (`virtual`, `in_person`)', 'modality'),
  modality: oneCode(modality().optional(), 'modality (the v1 name)'),
  location: text(200, 1).optional(),
  limit: pageLimit(),
  cursor: cursor().optional(),
});

/** Path of /api/v2/providers/:id. */
export const ProviderPath = z.object({ id: text(200, 1) });

/** The providers list envelope `{data, total, hasMore, nextCursor}`. */
export const ProviderList = z.object({
  data: z.array(Provider),
  total: nonNegativeInt(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

/** A provider in the v1 professional view (GET /api/v1/professionals). */
export const Professional = z.object({
  id: z.string(),
  externalId: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  username: z.string().nullable(),
  status: z.string(),
  searchable: z.boolean(),
  profession: z.string().nullable(),
  specialty: z.array(z.string()),
  languages: z.array(z.string()),
  modality: z.array(z.string()),
  insurance: z.array(z.string()),
  serviceRegions: z.array(z.string()),
  ageGroups: z.array(z.string()),
  acceptsNewClients: z.boolean().nullable(),
  timezone: z.string().nullable(),
  bio: z.string().nullable(),
  location: z.string().nullable(),
  profileVersion: nonNegativeInt(),
});
