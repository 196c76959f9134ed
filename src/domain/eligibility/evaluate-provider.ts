import type { Provider } from '../provider.js';
import type { AnyOfConstraint, CompiledEligibilityRequest } from './eligibility-request.js';
import { evaluateLicenseRegion } from './evaluate-license-region.js';
import { licenseExpiredDetail } from './license-expiry-text.js';
import type { ExclusionCode } from './exclusion-codes.js';
import type {
  ConstraintExclusion,
  ConstraintValue,
  EligibilityWarning,
  LicenseExpiry,
  MatchedConstraint,
  ProviderEligibility,
} from './provider-eligibility.js';

const NONE: readonly never[] = Object.freeze([]);
const TRUE: readonly boolean[] = Object.freeze([true]);
const FALSE: readonly boolean[] = Object.freeze([false]);
const ACTIVE: readonly string[] = Object.freeze(['active']);
const NOT_SEARCHABLE: ConstraintExclusion = Object.freeze({
  code: 'NOT_SEARCHABLE',
  field: 'searchable',
  required: TRUE,
  actual: FALSE,
  sourceStatus: 'self_reported',
  status: 'failed',
});
const NEW_CLIENTS_MATCH: MatchedConstraint = Object.freeze({
  code: 'ACCEPTS_NEW_CLIENTS_MATCH',
  field: 'acceptsNewClients',
  status: 'matched',
  required: TRUE,
  actual: TRUE,
  sourceStatus: 'self_reported',
  met: TRUE,
});
const NEW_CLIENTS_FAILED: ConstraintExclusion = Object.freeze({
  code: 'NOT_ACCEPTING_NEW_CLIENTS',
  field: 'acceptsNewClients',
  required: TRUE,
  actual: FALSE,
  sourceStatus: 'self_reported',
  status: 'failed',
});
/** The unknown verdict of a requested acceptsNewClients for a provider that has not stated it. */
export const NEW_CLIENTS_UNKNOWN: ConstraintExclusion = Object.freeze({
  code: 'NOT_ACCEPTING_NEW_CLIENTS',
  field: 'acceptsNewClients',
  required: TRUE,
  actual: NONE,
  sourceStatus: 'missing',
  status: 'unknown',
});

/** The verdict under construction; arrays start as the shared empty array and are replaced on first write. */
interface Draft {
  exclusions: ConstraintExclusion[];
  matchedConstraints: MatchedConstraint[];
  warnings: EligibilityWarning[];
  failed: boolean;
}

function exclude(d: Draft, exclusion: ConstraintExclusion): void {
  if (exclusion.status === 'failed') d.failed = true;
  if (d.exclusions.length === 0) d.exclusions = [exclusion];
  else d.exclusions.push(exclusion);
}

function match(d: Draft, matched: MatchedConstraint): void {
  if (d.matchedConstraints.length === 0) d.matchedConstraints = [matched];
  else d.matchedConstraints.push(matched);
}

function failed(
  code: ExclusionCode,
  field: string,
  required: readonly ConstraintValue[],
  actual: readonly ConstraintValue[],
): ConstraintExclusion {
  return { code, field, required, actual, sourceStatus: 'self_reported', status: 'failed' };
}

/** A whole country served covers its subdivisions, and a requested country is met by any region in it. */
function coversRegion(
  requested: ReadonlySet<string>,
  requestedCountries: ReadonlySet<string>,
  served: string,
): boolean {
  return served.length === 2 ? requestedCountries.has(served) : requested.has(served.slice(0, 2));
}

/**
 * An anyOf constraint over a provider list attribute: an empty attribute is unknown (never failed); a match or a
 * failure reports all the provider's own values for the field (CONTRACT part 4), the request's in `required`.
 */
function checkAnyOf(
  d: Draft,
  constraint: AnyOfConstraint | undefined,
  actual: readonly string[],
  countries?: ReadonlySet<string>,
): void {
  if (constraint === undefined) return;
  if (actual.length === 0) return exclude(d, constraint.unknown);
  const set = constraint.set;
  let first: string | undefined;
  let all: string[] | undefined;
  for (const value of actual) {
    if (set.has(value) || (countries !== undefined && coversRegion(set, countries, value))) {
      if (first === undefined) first = value;
      else (all ??= [first]).push(value);
    }
  }
  if (first === undefined) return exclude(d, failed(constraint.failCode, constraint.field, constraint.values, actual));
  const met = all ?? (actual.length === 1 ? actual : [first]);
  match(d, {
    code: constraint.matchCode,
    field: constraint.field,
    status: 'matched',
    required: constraint.values,
    actual,
    sourceStatus: 'self_reported',
    met,
  });
}

/**
 * Runs the eligibility pipeline (SPEC part 4, steps 2-12) for one provider, evaluating every step so that all
 * exclusions are collected. `offersService` says whether the provider has a service with the requested slug.
 * The returned arrays and the objects in them may be shared between providers: treat them as read-only.
 */
export function evaluateProvider(
  provider: Provider,
  c: CompiledEligibilityRequest,
  offersService = true,
): ProviderEligibility {
  // NONE is frozen: the casts only let the first write swap it for a fresh array.
  const d: Draft = {
    exclusions: NONE as never[],
    matchedConstraints: NONE as never[],
    warnings: NONE as never[],
    failed: false,
  };
  let licenseValidThrough: LicenseExpiry | undefined;

  // 2. Active and searchable are always applied.
  if (provider.status !== 'active') exclude(d, failed('PROVIDER_INACTIVE', 'status', ACTIVE, [provider.status]));
  if (!provider.searchable) exclude(d, NOT_SEARCHABLE);

  // 3. Service support.
  if (!offersService)
    exclude(d, failed('SERVICE_NOT_OFFERED', 'serviceId', c.serviceSlug === undefined ? NONE : [c.serviceSlug], NONE));

  // 4. Profession and specialty.
  const profession = provider.professionCode;
  checkAnyOf(d, c.professionCodes, profession === undefined || profession === '' ? NONE : [profession]);
  checkAnyOf(d, c.specialtyCodes, provider.specialtyCodes);

  // 5-7. Age group, modality, service region.
  checkAnyOf(d, c.ageGroupCodes, provider.ageGroupCodes);
  checkAnyOf(d, c.modalityCodes, provider.modalityCodes);
  checkAnyOf(d, c.serviceRegionCodes, provider.serviceRegionCodes, c.serviceRegionCountries);

  // 8. License region and expiration.
  const licenses = c.licenseRegionCodes;
  if (licenses !== undefined) {
    if (provider.licenseRecords.length === 0) {
      exclude(d, licenses.unknown);
    } else {
      const outcome = evaluateLicenseRegion(provider.licenseRecords, licenses, c);
      if (outcome.status === 'matched') {
        match(d, {
          code: 'LICENSE_REGION_MATCH',
          field: licenses.field,
          status: 'matched',
          required: licenses.values,
          actual: licenseRegions(provider),
          sourceStatus: 'verified',
          met: outcome.regions,
        });
        licenseValidThrough = outcome.validThrough;
        if (outcome.expiringSoon !== undefined) {
          const { regionCode, expiresAt } = outcome.expiringSoon;
          d.warnings = [
            {
              code: 'LICENSE_EXPIRING_SOON',
              message: `The license for ${regionCode} expires on ${expiresAt}, within 30 days; renew and re-verify it.`,
              providerId: provider.id,
              field: licenses.field,
            },
          ];
        }
      } else {
        exclude(d, {
          code: outcome.code,
          field: licenses.field,
          required: licenses.values,
          actual: licenseRegions(provider),
          sourceStatus: outcome.sourceStatus,
          status: outcome.status,
          ...(outcome.expiredOn === undefined ? {} : { detail: licenseExpiredDetail(outcome.expiredOn, c) }),
        });
      }
    }
  }

  // 9. Insurance.
  checkAnyOf(d, c.insurancePlanCodes, provider.insurancePlanCodes);

  // 10. Panel capacity is always applied; no capacity means unlimited.
  const capacity = provider.panelCapacity;
  if (capacity !== undefined) {
    const current = provider.panelCurrentCount ?? 0;
    if (current >= capacity) exclude(d, failed('PANEL_FULL', 'panelCapacity', [capacity], [current]));
  }

  // 11. Language.
  checkAnyOf(d, c.languageCodes, provider.languageCodes);

  // 12. Accepting new clients.
  if (c.acceptsNewClients) {
    const accepts = provider.acceptsNewClients;
    if (accepts === undefined) exclude(d, NEW_CLIENTS_UNKNOWN);
    else if (accepts) match(d, NEW_CLIENTS_MATCH);
    else exclude(d, NEW_CLIENTS_FAILED);
  }

  const first = d.exclusions[0];
  return {
    providerId: provider.id,
    status: d.failed ? 'excluded' : first !== undefined ? 'unknown' : 'matched',
    exclusions: d.exclusions,
    matchedConstraints: d.matchedConstraints,
    warnings: d.warnings,
    licenseValidThrough,
    firstExclusionCode: first === undefined ? null : first.code,
  };
}

/** Runs `evaluateProvider` over many providers; `offersService` decides the service step per provider. */
export function evaluateProviders(
  providers: readonly Provider[],
  c: CompiledEligibilityRequest,
  offersService: (provider: Provider) => boolean = () => true,
): ProviderEligibility[] {
  const results = new Array<ProviderEligibility>(providers.length);
  for (let i = 0; i < providers.length; i++) {
    const provider = providers[i]!;
    results[i] = evaluateProvider(provider, c, offersService(provider));
  }
  return results;
}

function licenseRegions(provider: Provider): readonly string[] {
  const records = provider.licenseRecords;
  if (records.length === 1) return [records[0]!.regionCode];
  return [...new Set(records.map((r) => r.regionCode))];
}
