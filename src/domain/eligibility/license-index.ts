import type { LicenseRecord, Provider } from '../provider.js';
import type { AnyOfConstraint, CompiledEligibilityRequest } from './eligibility-request.js';
import { licenseRecordStanding } from './evaluate-license-region.js';
import { add, has, newSet, type ProviderSet } from './provider-set.js';

/** The license records held in one region, with the position of the provider holding each (parallel lists). */
interface RegionRecords {
  holders: number[];
  records: LicenseRecord[];
}

/**
 * An organization's license records grouped by region, built once per provider graph version. Nothing in it depends
 * on the clock: where a record stands (expired, verified within a year) is judged when a request is screened, at
 * that request's clock, so one index serves every day of its graph version.
 */
export interface LicenseIndex {
  byRegion: ReadonlyMap<string, RegionRecords>;
}

/** Builds the license index of a provider list (positions follow the list's order). */
export function buildLicenseIndex(providers: readonly Provider[]): LicenseIndex {
  const byRegion = new Map<string, RegionRecords>();
  providers.forEach((p, i) => {
    for (const r of p.licenseRecords) {
      let region = byRegion.get(r.regionCode);
      if (!region) byRegion.set(r.regionCode, (region = { holders: [], records: [] }));
      region.holders.push(i);
      region.records.push(r);
    }
  });
  return { byRegion };
}

/**
 * The license step's verdict for every provider, as disjoint sets (`evaluateLicenseRegion`'s outcome and code):
 * matched, failed LICENSE_REGION_MISMATCH or LICENSE_EXPIRED, unknown LICENSE_UNVERIFIED or LICENSE_MISSING.
 */
export interface LicenseScreen {
  matched: ProviderSet;
  regionMismatch: ProviderSet;
  expired: ProviderSet;
  unverified: ProviderSet;
  /** Of `unverified`, those whose verdict reports `stale` provider data (the others report `self_reported`). */
  unverifiedStale: ProviderSet;
  missing: ProviderSet;
  /**
   * Matched providers whose matching license ends before the range's last date: position -> its last valid date
   * (the latest of their matching licenses). Slots after it are not offered (CONTRACT part 8).
   */
  validThrough: Map<number, string>;
}

/**
 * Judges the license rule (CONTRACT part 4, anyOf over the requested regions) for every provider at once: each record
 * of a requested region is judged once at the request's clock, then the per-region outcomes are combined on bitsets.
 * The result equals running `evaluateLicenseRegion` on every provider (providers without records: LICENSE_MISSING).
 */
export function screenLicenses(
  index: LicenseIndex,
  all: ProviderSet,
  requested: AnyOfConstraint,
  c: CompiledEligibilityRequest,
): LicenseScreen {
  const words = all.length;
  const matched = newSet(words);
  // Per region, the first rule that applies wins: matched, then expired, then unverified, then only non-active
  // records (mismatch), then no record (missing). Across regions: matched anywhere; else the lowest unknown code;
  // else the lowest failed code (evaluateLicenseRegion).
  const expiredAny = newSet(words);
  const unverifiedAny = newSet(words);
  const unverifiedStale = newSet(words);
  const mismatchAny = newSet(words);
  const missingAny = newSet(words);
  const claimed = newSet(words);
  const m = newSet(words);
  const e = newSet(words);
  const u = newSet(words);
  const stale = newSet(words);
  const found = newSet(words);
  // Matching licenses ending inside the range, and the providers holding a matching one that does not.
  const lastDate = c.rangeLastDate;
  const endsInRange = new Map<number, string>();
  const uncut = newSet(words);
  for (const region of requested.values) {
    m.fill(0);
    e.fill(0);
    u.fill(0);
    stale.fill(0);
    found.fill(0);
    const held = index.byRegion.get(region);
    if (held) {
      const { holders, records } = held;
      for (let k = 0; k < records.length; k++) {
        const i = holders[k]!;
        add(found, i);
        const record = records[k]!;
        const standing = licenseRecordStanding(record, c);
        if (standing === 'verified') {
          add(m, i);
          const end = record.expiresAt;
          if (lastDate === undefined || end === undefined || end >= lastDate) add(uncut, i);
          else {
            const known = endsInRange.get(i);
            if (known === undefined || end > known) endsInRange.set(i, end);
          }
        } else if (standing === 'expired') add(e, i);
        else if (standing !== 'inactive') {
          add(u, i);
          if (standing === 'stale') add(stale, i);
        }
      }
    }
    for (let w = 0; w < words; w++) {
      const mw = m[w]!;
      const ew = e[w]! & ~mw;
      const uw = u[w]! & ~mw & ~ew;
      matched[w]! |= mw;
      expiredAny[w]! |= ew;
      unverifiedAny[w]! |= uw;
      mismatchAny[w]! |= found[w]! & ~mw & ~ew & ~uw;
      missingAny[w]! |= all[w]! & ~found[w]!;
      // The source of an unverified verdict is that of the first requested region judged unverified.
      unverifiedStale[w]! |= uw & ~claimed[w]! & stale[w]!;
      claimed[w]! |= uw;
    }
  }
  const out: LicenseScreen = {
    matched,
    regionMismatch: newSet(words),
    expired: newSet(words),
    unverified: newSet(words),
    unverifiedStale,
    missing: newSet(words),
    validThrough: endsInRange,
  };
  for (const i of endsInRange.keys()) if (has(uncut, i)) endsInRange.delete(i);
  for (let w = 0; w < words; w++) {
    const open = all[w]! & ~matched[w]!;
    out.unverified[w] = open & unverifiedAny[w]!;
    out.unverifiedStale[w]! &= out.unverified[w]!;
    const notUnverified = open & ~unverifiedAny[w]!;
    out.missing[w] = notUnverified & missingAny[w]!;
    const failed = notUnverified & ~missingAny[w]!;
    out.regionMismatch[w] = failed & mismatchAny[w]!;
    out.expired[w] = failed & ~mismatchAny[w]!;
  }
  return out;
}
