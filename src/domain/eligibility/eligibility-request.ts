import type { ExclusionCode, MatchedConstraintCode } from './exclusion-codes.js';
import type { ConstraintExclusion } from './provider-eligibility.js';

/** The hard constraints of a resolution, already normalized (CONTRACT part 3); each list is anyOf. */
export interface EligibilityRequest {
  /** Slug of the requested session type (the service step is judged by the caller, see `evaluateProvider`). */
  serviceSlug?: string | undefined;
  professionCodes?: readonly string[] | undefined;
  specialtyCodes?: readonly string[] | undefined;
  ageGroupCodes?: readonly string[] | undefined;
  modalityCodes?: readonly string[] | undefined;
  serviceRegionCodes?: readonly string[] | undefined;
  licenseRegionCodes?: readonly string[] | undefined;
  insurancePlanCodes?: readonly string[] | undefined;
  languageCodes?: readonly string[] | undefined;
  /** Only `true` is a constraint; `false` or absent means "not requested". */
  acceptsNewClients?: boolean | undefined;
}

/** The instant eligibility is judged at. */
export interface EligibilityClock {
  now: Date;
  /** Today's date (YYYY-MM-DD) license expiry is judged against; defaults to the UTC date of `now`. */
  today?: string | undefined;
  /**
   * The request's local dates (`from` inclusive, `to` exclusive), when it has a range: a matching license must be
   * valid on the date of each slot offered (CONTRACT part 8), so one ending before `from` is expired for the request.
   */
  range?: { from: string; to: string } | undefined;
}

/** One requested anyOf list, with a Set for lookups and the verdicts shared by every provider. */
export interface AnyOfConstraint {
  /** The constraint's name, e.g. `languageCodes`. */
  field: string;
  values: readonly string[];
  set: ReadonlySet<string>;
  failCode: ExclusionCode;
  matchCode: MatchedConstraintCode;
  /** The (frozen) unknown exclusion for a provider without this attribute. */
  unknown: ConstraintExclusion;
}

/** A request compiled once per resolution so that evaluating each provider allocates little. */
export interface CompiledEligibilityRequest {
  serviceSlug: string | undefined;
  professionCodes: AnyOfConstraint | undefined;
  specialtyCodes: AnyOfConstraint | undefined;
  ageGroupCodes: AnyOfConstraint | undefined;
  modalityCodes: AnyOfConstraint | undefined;
  serviceRegionCodes: AnyOfConstraint | undefined;
  /** Countries named by the requested service regions (`US` for `US-CA`, and `US` itself). */
  serviceRegionCountries: ReadonlySet<string>;
  licenseRegionCodes: AnyOfConstraint | undefined;
  insurancePlanCodes: AnyOfConstraint | undefined;
  languageCodes: AnyOfConstraint | undefined;
  acceptsNewClients: boolean;
  /** YYYY-MM-DD; a license is valid through its `expiresAt` date, so it is expired when `expiresAt < today`. */
  today: string;
  /**
   * YYYY-MM-DD; a license is expired for this request when `expiresAt < validFrom`: the later of today and the
   * range's first date (no slot of the range falls on an earlier date).
   */
  validFrom: string;
  /** YYYY-MM-DD, the range's last date; a matching license ending before it cuts the provider's slots. */
  rangeLastDate: string | undefined;
  /** YYYY-MM-DD, today + 30 days: a matched license expiring on or before it gives LICENSE_EXPIRING_SOON. */
  expiringSoonThrough: string;
  /** Epoch ms; a license verified at or after it (within 365 days of now) counts as verified. */
  verifiedSinceMs: number;
  /** `verifiedSinceMs` as `YYYY-MM-DDTHH:MM:SS.sssZ`, and rounded up to whole seconds as `YYYY-MM-DDTHH:MM:SSZ`. */
  verifiedSinceIso: string;
  verifiedSinceIsoSeconds: string;
}

const DAY_MS = 86_400_000;

/** Days a matched license may have left before it is reported as expiring soon. */
export const LICENSE_EXPIRY_WARNING_DAYS = 30;

/** Days a license verification stays fresh ("verified within 1 year"). */
export const LICENSE_VERIFICATION_MAX_AGE_DAYS = 365;

function anyOf(
  values: readonly string[] | undefined,
  field: string,
  failCode: ExclusionCode,
  matchCode: MatchedConstraintCode,
): AnyOfConstraint | undefined {
  // An empty anyOf list asks for nothing: it is treated as not requested.
  if (values === undefined || values.length === 0) return undefined;
  const required = Object.freeze([...new Set(values)]);
  const unknown: ConstraintExclusion = Object.freeze({
    code: failCode,
    field,
    required,
    actual: Object.freeze([]),
    sourceStatus: 'missing',
    status: 'unknown',
  });
  return { field, values: required, set: new Set(required), failCode, matchCode, unknown };
}

function addDays(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new RangeError(`today must be a YYYY-MM-DD date, got "${date}"`);
  return new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}

/** Compiles a request and the clock it is judged at, once per resolution. */
export function compileEligibilityRequest(
  request: EligibilityRequest,
  clock: EligibilityClock,
): CompiledEligibilityRequest {
  const nowMs = clock.now.getTime();
  if (Number.isNaN(nowMs)) throw new RangeError('now must be a valid Date');
  const today = clock.today ?? clock.now.toISOString().slice(0, 10);
  const range = clock.range;
  const verifiedSinceMs = nowMs - LICENSE_VERIFICATION_MAX_AGE_DAYS * DAY_MS;
  const serviceRegionCodes = anyOf(
    request.serviceRegionCodes,
    'serviceRegionCodes',
    'SERVICE_REGION_MISMATCH',
    'SERVICE_REGION_MATCH',
  );
  const countries = new Set<string>();
  for (const code of serviceRegionCodes?.values ?? []) countries.add(code.slice(0, 2));
  return {
    serviceSlug: request.serviceSlug,
    professionCodes: anyOf(request.professionCodes, 'professionCodes', 'PROFESSION_MISMATCH', 'PROFESSION_MATCH'),
    specialtyCodes: anyOf(request.specialtyCodes, 'specialtyCodes', 'SPECIALTY_MISMATCH', 'SPECIALTY_MATCH'),
    ageGroupCodes: anyOf(request.ageGroupCodes, 'ageGroupCodes', 'AGE_GROUP_MISMATCH', 'AGE_GROUP_MATCH'),
    modalityCodes: anyOf(request.modalityCodes, 'modalityCodes', 'MODALITY_MISMATCH', 'MODALITY_MATCH'),
    serviceRegionCodes,
    serviceRegionCountries: countries,
    licenseRegionCodes: anyOf(
      request.licenseRegionCodes,
      'licenseRegionCodes',
      'LICENSE_MISSING',
      'LICENSE_REGION_MATCH',
    ),
    insurancePlanCodes: anyOf(
      request.insurancePlanCodes,
      'insurancePlanCodes',
      'INSURANCE_NOT_ACCEPTED',
      'INSURANCE_MATCH',
    ),
    languageCodes: anyOf(request.languageCodes, 'languageCodes', 'LANGUAGE_MISMATCH', 'LANGUAGE_MATCH'),
    acceptsNewClients: request.acceptsNewClients === true,
    today,
    validFrom: range !== undefined && range.from > today ? range.from : today,
    rangeLastDate: range === undefined ? undefined : addDays(range.to, -1),
    expiringSoonThrough: addDays(today, LICENSE_EXPIRY_WARNING_DAYS),
    verifiedSinceMs,
    verifiedSinceIso: new Date(verifiedSinceMs).toISOString(),
    verifiedSinceIsoSeconds: new Date(Math.ceil(verifiedSinceMs / 1000) * 1000).toISOString().slice(0, 19) + 'Z',
  };
}
