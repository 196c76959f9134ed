import { z } from 'zod';
import { cursor, ianaTimezone, instant, list, nonNegativeInt, pageLimit, queryInt, text } from '../fields.js';
import { normalizedCode } from '../normalized-code.js';
import { protoOneof, protoView } from '../proto-view.js';
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

/** A part of the day a client prefers. */
export const DayPart = z.enum(['morning', 'afternoon', 'evening']);

/** The outcome of a resolution: at least one option, or none. */
export const ResolutionStatus = z.enum(['resolved', 'zero_results']);

/** Ranking preferences (SPEC 4.1, CONTRACT part 4). */
export const ResolutionPreferences = z.object({
  dayParts: protoView(list(DayPart).optional(), { name: 'preferred_day_parts' }),
  earliestAvailable: z.boolean().optional(),
  languageCodes: list(normalizedCode(normalizeLanguageCode, 'language code')).optional(),
  location: text(200).optional(),
  specialtyCodes: list(normalizedCode(normalizeCode, 'specialty code')).optional(),
  clientRef: text(200, 1).optional(),
  timezone: ianaTimezone().optional(),
});

/** A date of a dateRange as the typed API carries it (REST takes any JSON and the domain judges it). */
const rangeDate = (what: string) =>
  z.string().meta({ description: `${what}, a provider-local date YYYY-MM-DD (INVALID_DATE_RANGE otherwise).` });

/** A dateRange as sent; its dates are checked by the domain (INVALID_DATE_RANGE). */
export const DateRangeInput = z
  .object({
    from: protoView(z.unknown(), { schema: rangeDate('The first day'), name: 'from_date' }),
    to: protoView(z.unknown(), { schema: rangeDate('The day after the last'), name: 'to_date' }),
  })
  .meta({
    description: 'Half-open window of provider-local dates {from, to} (YYYY-MM-DD), at most 14 days.',
  });

/**
 * Body of POST /api/v2/resolutions. Its message also carries `v1_rules`, which only the typed API has: the rules of the
 * v1 form (POST /api/v1/resolutions maps onto CreateResolution with them).
 */
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

/** A v1 constraint list as its REST form is read: REST also takes one code as text, read as a list of one. */
const codes = (what: string) =>
  z
    .array(z.string())
    .optional()
    .meta({ description: `${what}; a provider matches when it has one of them. Empty: no constraint.` });

/**
 * The v1 constraints as the gateway reads them before mapping them onto CreateResolution (v1-resolution-form.ts): every
 * list a list of codes, under the v1 or v2 name.
 */
const V1ConstraintLists = z
  .object({
    languages: codes('Language codes (ISO 639-1)'),
    languageCodes: codes('Language codes (ISO 639-1), the v2 name of `languages`'),
    modality: codes('Modalities (`virtual`, `in_person`)'),
    modalityCodes: codes('Modalities, the v2 name of `modality`'),
    insurance: codes('Insurance plan codes'),
    insurancePlanCodes: codes('Insurance plan codes, the v2 name of `insurance`'),
    specialty: codes('Specialty codes'),
    specialtyCodes: codes('Specialty codes, the v2 name of `specialty`'),
    profession: codes('Profession codes'),
    professionCodes: codes('Profession codes, the v2 name of `profession`'),
    ageGroupCodes: codes('Age groups (`adult`, `adolescent`, `child`, `senior`)'),
    serviceRegionCodes: codes('Service region codes (`US-CA`)'),
    licenseRegionCodes: codes('License region codes (`US-CA`)'),
    acceptsNewClients: z.boolean().optional().meta({ description: 'Only providers accepting new clients when true.' }),
  })
  .optional()
  .meta({ description: 'Hard constraints: a provider is eligible only when it meets every one given.' });

/** The v1 name of each v2 constraint list that has one of its own (the other lists kept their name in v1). */
export const V1_CONSTRAINT_NAMES = {
  languageCodes: 'languages',
  modalityCodes: 'modality',
  insurancePlanCodes: 'insurance',
  specialtyCodes: 'specialty',
  professionCodes: 'profession',
} as const;

/** Body of POST /api/v1/resolutions: `service` (id or slug) and plain-value constraints under v1 or v2 names. */
export const CreateResolutionV1Body = z.object({
  service: text(200, 1),
  constraints: protoView(
    z
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
    { schema: V1ConstraintLists, name: 'constraint_lists' },
  ),
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
  limit: pageLimit(),
  cursor: cursor().optional(),
});

/** One value a constraint asks for or a provider has: a code, a number or a flag (`domain`'s ConstraintValue). */
const ConstraintValue = protoOneof(z.union([z.string(), z.number(), z.boolean()]), {
  message: 'ConstraintValue',
  cases: [
    { name: 'text', schema: z.string().meta({ description: 'A code.' }), test: (v) => typeof v === 'string' },
    { name: 'number', schema: z.number().meta({ description: 'A number.' }), test: (v) => typeof v === 'number' },
    { name: 'flag', schema: z.boolean().meta({ description: 'A flag.' }), test: (v) => typeof v === 'boolean' },
  ],
});

/** The `required` or `actual` values of a constraint, typed for the proto (REST: a JSON array). */
const constraintValues = (name: 'required_values' | 'actual_values', description: string) =>
  protoView(z.array(z.unknown()), { schema: z.array(ConstraintValue).meta({ description }), name });

/** One hard constraint as evaluated for a provider: required and actual values, status and source. */
export const ConstraintRecord = z.object({
  code: z.string(),
  field: z.string(),
  status: z.string(),
  required: constraintValues('required_values', 'The values the constraint asks for (any one of them).'),
  actual: constraintValues('actual_values', "The provider's values for the constraint."),
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
  status: ResolutionStatus,
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
      required: constraintValues('required_values', 'The values the constraint asks for (any one of them).'),
      actual: constraintValues('actual_values', "The provider's values for the constraint."),
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
  status: protoView(
    ResolutionStatus.meta({
      description:
        'The outcome when the resolution was made; written once and never updated: expiry shows in `expiresAt`, confirmation in `bookingId`, the live state in GET /api/v2/resolutions/:id or the inspector.',
    }),
    { schema: ResolutionStatus },
  ),
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
