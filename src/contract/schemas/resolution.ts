import { z } from 'zod';
import { cursor, ianaTimezone, instant, list, nonNegativeInt, queryInt, text } from '../fields.js';
import { normalizedCode } from '../normalized-code.js';
import {
  normalizeAgeGroupCode,
  normalizeCode,
  normalizeInsurancePlan,
  normalizeLanguageCode,
  normalizeModalityCode,
  normalizeRegionCode,
  type CodeNormalizer,
} from '../../domain/normalize-codes.js';

const anyOf = (fn: CodeNormalizer, what: string) =>
  z.object({ anyOf: list(normalizedCode(fn, what)).transform((xs) => [...new Set(xs)]) });

/** v2 hard constraints: each list is `{anyOf: [...]}` (SPEC 4.1). */
export const ResolutionConstraints = z.object({
  languageCodes: anyOf(normalizeLanguageCode, 'language code').optional(),
  modalityCodes: anyOf(normalizeModalityCode, 'modality').optional(),
  licenseRegionCodes: anyOf(normalizeRegionCode, 'region code').optional(),
  insurancePlanCodes: anyOf(normalizeInsurancePlan, 'insurance plan').optional(),
  ageGroupCodes: anyOf(normalizeAgeGroupCode, 'age group').optional(),
  specialtyCodes: anyOf(normalizeCode, 'specialty code').optional(),
  professionCodes: anyOf(normalizeCode, 'profession code').optional(),
  serviceRegionCodes: anyOf(normalizeRegionCode, 'region code').optional(),
  acceptsNewClients: z.boolean().optional(),
});

/** Ranking preferences (SPEC 4.1, CONTRACT part 4). */
export const ResolutionPreferences = z.object({
  dayParts: list(z.enum(['morning', 'afternoon', 'evening'])).optional(),
  earliestAvailable: z.boolean().optional(),
  languageCodes: list(normalizedCode(normalizeLanguageCode, 'language code')).optional(),
  location: text(200).optional(),
  specialtyCodes: list(normalizedCode(normalizeCode, 'specialty code')).optional(),
  clientRef: text(200, 1).optional(),
  timezone: ianaTimezone().optional(),
});

/** A dateRange as sent; its dates are checked by the domain (INVALID_DATE_RANGE). */
export const DateRangeInput = z.object({ from: z.unknown(), to: z.unknown() }).meta({
  description: 'Half-open window of provider-local dates {from, to} (YYYY-MM-DD), at most 14 days.',
});

/** Body of POST /api/v2/resolutions. */
export const CreateResolutionBody = z.object({
  serviceId: text(200, 1),
  constraints: ResolutionConstraints.optional(),
  preferences: ResolutionPreferences.optional(),
  dateRange: DateRangeInput,
  policyId: text(200, 1).optional(),
  maxOptionsPerProvider: z.number().int().min(1).max(10).optional(),
});

const plain = (fn: CodeNormalizer, what: string) =>
  z.union([normalizedCode(fn, what).transform((v) => [v]), list(normalizedCode(fn, what))]);

/** Body of POST /api/v1/resolutions: `service` (id or slug) and plain-value constraints under v1 or v2 names. */
export const CreateResolutionV1Body = z.object({
  service: text(200, 1),
  constraints: z
    .object({
      languages: plain(normalizeLanguageCode, 'language code').optional(),
      languageCodes: plain(normalizeLanguageCode, 'language code').optional(),
      modality: plain(normalizeModalityCode, 'modality').optional(),
      modalityCodes: plain(normalizeModalityCode, 'modality').optional(),
      insurance: plain(normalizeInsurancePlan, 'insurance plan').optional(),
      insurancePlanCodes: plain(normalizeInsurancePlan, 'insurance plan').optional(),
      specialty: plain(normalizeCode, 'specialty code').optional(),
      specialtyCodes: plain(normalizeCode, 'specialty code').optional(),
      profession: plain(normalizeCode, 'profession code').optional(),
      professionCodes: plain(normalizeCode, 'profession code').optional(),
      ageGroupCodes: plain(normalizeAgeGroupCode, 'age group').optional(),
      serviceRegionCodes: plain(normalizeRegionCode, 'region code').optional(),
      licenseRegionCodes: z.unknown().optional(),
      acceptsNewClients: z.boolean().optional(),
    })
    .optional(),
  preferences: ResolutionPreferences.optional(),
  dateRange: DateRangeInput,
  maxOptionsPerProvider: z.number().int().min(1).max(10).optional(),
});

/** Path of /api/v2/resolutions/:id. */
export const ResolutionPath = z.object({ id: text(200, 1) });

/** Query of GET /api/v2/resolutions/:id/candidates. */
export const CandidatesQuery = z.object({
  status: z.enum(['matched', 'eligible', 'excluded', 'unknown']).optional(),
  exclusionCode: z
    .string()
    .regex(/^[A-Z_]{1,64}$/, 'must be an exclusion code such as LANGUAGE_MISMATCH')
    .optional(),
  limit: queryInt(1, 500).optional(),
  cursor: cursor().optional(),
});

/** One hard constraint as evaluated for a provider: required and actual values, status and source. */
export const ConstraintRecord = z.object({
  code: z.string(),
  field: z.string(),
  status: z.string(),
  required: z.array(z.unknown()),
  actual: z.array(z.unknown()),
  sourceStatus: z.string(),
});

/** One option of a resolution (SPEC part 2). */
export const ResolutionOption = z.object({
  optionId: z.string(),
  rank: nonNegativeInt(),
  provider: z.object({ id: z.string(), externalId: z.string(), displayName: z.string() }),
  service: z.object({ id: z.string(), displayName: z.string(), durationMinutes: nonNegativeInt() }),
  slot: z.object({ start: instant(), end: instant(), timezone: z.string() }),
  availabilityStatus: z.string(),
  availabilityCheckedAt: instant(),
  score: z.number(),
  matchedConstraints: z.array(ConstraintRecord),
  rankingFactors: z.array(z.object({ code: z.string(), points: z.number() })),
  reason: z.string(),
  warnings: z.array(
    z.object({
      code: z.string(),
      message: z.string(),
      providerId: z.string().optional(),
      field: z.string().optional(),
    }),
  ),
});

/** A resolution (resolved or zero_results; SPEC part 2 and CONTRACT part 4). */
export const Resolution = z.object({
  resolutionId: z.string(),
  status: z.enum(['resolved', 'zero_results']),
  requestId: z.string(),
  organizationId: z.string(),
  policy: z.object({ id: z.string(), version: nonNegativeInt() }),
  providerGraphVersion: nonNegativeInt(),
  createdAt: instant(),
  expiresAt: instant(),
  summary: z.object({
    providersScanned: nonNegativeInt(),
    eligibleProviders: nonNegativeInt(),
    providersWithVerifiedAvailability: nonNegativeInt(),
    optionsReturned: nonNegativeInt(),
    evaluatedSlots: nonNegativeInt(),
  }),
  options: z.array(ResolutionOption),
  exclusionSummary: z.record(z.string(), nonNegativeInt()),
  warnings: z.array(
    z.object({
      code: z.string(),
      message: z.string(),
      providerId: z.string().optional(),
      field: z.string().optional(),
    }),
  ),
  totalProviders: nonNegativeInt().optional(),
  evaluatedSlots: nonNegativeInt().optional(),
  zeroResultReasons: z
    .array(
      z.object({
        reasonCode: z.string(),
        description: z.string(),
        affectedProviders: nonNegativeInt(),
        suggestion: z.string(),
      }),
    )
    .optional(),
});

/** One candidate (per-provider eligibility record). */
export const Candidate = z.object({
  providerId: z.string(),
  displayName: z.string(),
  eligibilityStatus: z.enum(['matched', 'excluded', 'unknown']),
  exclusions: z.array(
    z.object({
      code: z.string(),
      field: z.string(),
      required: z.array(z.unknown()),
      actual: z.array(z.unknown()),
      sourceStatus: z.string(),
      status: z.string(),
      detail: z
        .string()
        .optional()
        .meta({ description: 'What the values do not show; LICENSE_EXPIRED names the license’s expiry date.' }),
    }),
  ),
  matchedConstraints: z.array(ConstraintRecord),
  rank: nonNegativeInt().nullable(),
});

/** The candidates page. */
export const CandidatesPage = z.object({
  resolutionId: z.string(),
  candidates: z.array(Candidate),
  summary: z.object({
    total: nonNegativeInt(),
    matched: nonNegativeInt(),
    excluded: nonNegativeInt(),
    unknown: nonNegativeInt(),
  }),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

/** Query of GET /api/v2/resolutions. */
export const ListResolutionsQuery = z.object({
  limit: queryInt(1, 100).optional().meta({ description: 'Page size, default 20, at most 100.' }),
  cursor: cursor().optional(),
});

/** A resolution as the ledger keeps it (GET /api/v2/resolutions); the options themselves are read with GET /api/v2/resolutions/:id. */
export const ResolutionSummary = z.object({
  id: z.string(),
  status: z.enum(['resolved', 'zero_results']).meta({
    description:
      'The outcome when the resolution was made; written once and never updated: expiry shows in `expiresAt`, confirmation in `bookingId`, the live state in GET /api/v2/resolutions/:id or the inspector.',
  }),
  requestId: z.string(),
  serviceSlug: z.string(),
  policyId: z.string(),
  policyVersion: nonNegativeInt(),
  graphVersion: nonNegativeInt().meta({ description: 'The provider graph version the resolution was computed on.' }),
  optionsReturned: nonNegativeInt(),
  evaluatedSlots: nonNegativeInt(),
  providersScanned: nonNegativeInt(),
  bookingId: z.string().nullable(),
  createdAt: instant(),
  expiresAt: instant(),
});
