import type { LicenseRecord } from '../provider.js';
import type { AnyOfConstraint, CompiledEligibilityRequest } from './eligibility-request.js';
import type { LicenseExclusionCode } from './exclusion-codes.js';
import type { LicenseExpiry, SourceStatus } from './provider-eligibility.js';

/** The license-region verdict for one provider over the requested regions (anyOf). */
export type LicenseRegionOutcome =
  | {
      status: 'matched';
      /** The requested regions where an active, unexpired license verified within a year exists. */
      regions: readonly string[];
      /** Set when every matching license ends within 30 days: the latest such expiry and its region. */
      expiringSoon: LicenseExpiry | undefined;
      /** The matching license's last valid date (the latest of them) and its region; undefined when one has no end. */
      validThrough: LicenseExpiry | undefined;
    }
  | {
      status: 'failed' | 'unknown';
      code: LicenseExclusionCode;
      sourceStatus: SourceStatus;
      /** For LICENSE_EXPIRED: the latest expiry of the expired licenses and its region. */
      expiredOn?: LicenseExpiry | undefined;
    };

const SOURCE_RANK: Record<SourceStatus, number> = { missing: 0, self_reported: 1, stale: 2, verified: 3 };

function better(a: SourceStatus, b: SourceStatus): SourceStatus {
  return SOURCE_RANK[b] > SOURCE_RANK[a] ? b : a;
}

const Z = 90;
const T = 84;
const DOT = 46;

/**
 * How fresh a record's verification is: `verified` within 365 days of now, `stale` before that, `self_reported` when
 * never verified (or the timestamp is unreadable).
 */
export function licenseSourceStatus(
  record: LicenseRecord,
  c: CompiledEligibilityRequest,
): Exclude<SourceStatus, 'missing'> {
  const at = record.verifiedAt;
  if (at === undefined) return 'self_reported';
  // Canonical UTC forms compare as strings, sparing a Date.parse per record on the hot path.
  if (at.length === 20 && at.charCodeAt(19) === Z && at.charCodeAt(10) === T) {
    return at >= c.verifiedSinceIsoSeconds ? 'verified' : 'stale';
  }
  if (at.length === 24 && at.charCodeAt(23) === Z && at.charCodeAt(19) === DOT && at.charCodeAt(10) === T) {
    return at >= c.verifiedSinceIso ? 'verified' : 'stale';
  }
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return 'self_reported';
  return ms >= c.verifiedSinceMs ? 'verified' : 'stale';
}

/**
 * Where one license record stands at the request's clock (CONTRACT part 4): not `active`; `active` but expired; or
 * active and unexpired, then by how fresh its verification is (`verified` matches the region, the others are unverified).
 */
export type LicenseStanding = 'inactive' | 'expired' | 'verified' | 'stale' | 'self_reported';

/**
 * Judges where one license record stands at the request's clock (the region rule's per-record part); a license
 * ending before the request's first date (`validFrom`) is valid on none of its slots, so it is expired for it.
 */
export function licenseRecordStanding(record: LicenseRecord, c: CompiledEligibilityRequest): LicenseStanding {
  if (record.status !== 'active') return 'inactive';
  if (record.expiresAt !== undefined && record.expiresAt < c.validFrom) return 'expired';
  return licenseSourceStatus(record, c);
}

// Per-region verdicts, in CONTRACT order; for a provider with no match the lowest-ranked code is reported, which is
// also the earliest in pipeline order.
const MATCHED = -1;
const CODES: readonly LicenseExclusionCode[] = [
  'LICENSE_REGION_MISMATCH',
  'LICENSE_EXPIRED',
  'LICENSE_UNVERIFIED',
  'LICENSE_MISSING',
];
const REGION_MISMATCH = 0;
const EXPIRED = 1;
const UNVERIFIED = 2;
const MISSING = 3;

/** Out-values of `judgeRegion`; evaluation is synchronous, so one scratch record serves every call. */
const scratch = {
  sourceStatus: 'missing' as SourceStatus,
  latestExpiry: undefined as string | undefined,
  expiredOn: '',
};

/** Judges one requested region by the first rule that applies (CONTRACT part 4). */
function judgeRegion(records: readonly LicenseRecord[], region: string, c: CompiledEligibilityRequest): number {
  let found = false;
  let matched = false;
  // An undefined expiresAt on a matching record means "no end date", which beats any date.
  let latestExpiry: string | undefined = '';
  let expiredSource: SourceStatus | undefined;
  let expiredOn = '';
  let inactiveSource: SourceStatus = 'missing';
  let unverifiedSource: SourceStatus | undefined;
  for (const r of records) {
    if (r.regionCode !== region) continue;
    found = true;
    const standing = licenseRecordStanding(r, c);
    if (standing === 'inactive') {
      inactiveSource = better(inactiveSource, licenseSourceStatus(r, c));
    } else if (standing === 'expired') {
      expiredSource = better(expiredSource ?? 'missing', licenseSourceStatus(r, c));
      if (r.expiresAt! > expiredOn) expiredOn = r.expiresAt!;
    } else if (standing === 'verified') {
      matched = true;
      if (latestExpiry !== undefined && (r.expiresAt === undefined || r.expiresAt > latestExpiry))
        latestExpiry = r.expiresAt;
    } else {
      unverifiedSource = better(unverifiedSource ?? 'missing', standing);
    }
  }
  if (matched) {
    scratch.sourceStatus = 'verified';
    scratch.latestExpiry = latestExpiry;
    return MATCHED;
  }
  if (expiredSource !== undefined) {
    scratch.sourceStatus = expiredSource;
    scratch.expiredOn = expiredOn;
    return EXPIRED;
  }
  if (unverifiedSource !== undefined) {
    scratch.sourceStatus = unverifiedSource;
    return UNVERIFIED;
  }
  // Records here, none active: only non-active records.
  scratch.sourceStatus = inactiveSource;
  return found ? REGION_MISMATCH : MISSING;
}

/**
 * Judges the provider's licenses against the requested regions: matched if any region matches; otherwise unknown if
 * any region is unknown (its data could still make it match); otherwise failed.
 */
export function evaluateLicenseRegion(
  records: readonly LicenseRecord[],
  requested: AnyOfConstraint,
  c: CompiledEligibilityRequest,
): LicenseRegionOutcome {
  let firstMatched: string | undefined;
  let matchedRegions: string[] | undefined;
  let latestRegion = '';
  let latestExpiry: string | undefined = '';
  let failed = MISSING + 1;
  let failedSource: SourceStatus = 'missing';
  let expiredOn: LicenseExpiry | undefined;
  let unknown = MISSING + 1;
  let unknownSource: SourceStatus = 'missing';
  for (const region of requested.values) {
    const verdict = judgeRegion(records, region, c);
    if (verdict === MATCHED) {
      if (firstMatched === undefined) firstMatched = region;
      else (matchedRegions ??= [firstMatched]).push(region);
      const expiry = scratch.latestExpiry;
      if (latestExpiry !== undefined && (expiry === undefined || expiry > latestExpiry)) {
        latestExpiry = expiry;
        latestRegion = region;
      }
    } else if (verdict >= UNVERIFIED) {
      if (verdict < unknown) {
        unknown = verdict;
        unknownSource = scratch.sourceStatus;
      }
    } else {
      if (verdict === EXPIRED && (expiredOn === undefined || scratch.expiredOn > expiredOn.expiresAt))
        expiredOn = { regionCode: region, expiresAt: scratch.expiredOn };
      if (verdict < failed) {
        failed = verdict;
        failedSource = scratch.sourceStatus;
      }
    }
  }
  if (firstMatched !== undefined) {
    const validThrough = latestExpiry === undefined ? undefined : { regionCode: latestRegion, expiresAt: latestExpiry };
    const expiringSoon =
      validThrough !== undefined && validThrough.expiresAt <= c.expiringSoonThrough ? validThrough : undefined;
    return { status: 'matched', regions: matchedRegions ?? [firstMatched], expiringSoon, validThrough };
  }
  if (unknown <= MISSING) return { status: 'unknown', code: CODES[unknown]!, sourceStatus: unknownSource };
  if (failed === EXPIRED) return { status: 'failed', code: 'LICENSE_EXPIRED', sourceStatus: failedSource, expiredOn };
  return { status: 'failed', code: CODES[failed]!, sourceStatus: failedSource };
}
