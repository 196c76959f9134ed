import type { Provider } from '../provider.js';
import type { AnyOfConstraint, CompiledEligibilityRequest } from './eligibility-request.js';
import { evaluateLicenseRegion } from './evaluate-license-region.js';
import { EXCLUSION_CODES, exclusionCodeOrder, type ExclusionCode } from './exclusion-codes.js';

/** A set of provider positions as a bitset (bit i = the provider at position i). */
export type ProviderSet = Uint32Array;

/** The per-value index of one list attribute: who has each value, and who has none. */
interface AttributeIndex {
  byValue: Map<string, ProviderSet>;
  empty: ProviderSet;
}

type ListField =
  | 'professionCodes'
  | 'specialtyCodes'
  | 'ageGroupCodes'
  | 'modalityCodes'
  | 'serviceRegionCodes'
  | 'insurancePlanCodes'
  | 'languageCodes';

/**
 * Bitsets over an organization's providers (built once per provider graph version), so that a resolution
 * screens every provider with a few hundred word operations per constraint instead of a verdict object per provider.
 */
export interface EligibilityIndex {
  providers: readonly Provider[];
  words: number;
  all: ProviderSet;
  inactive: ProviderSet;
  notSearchable: ProviderSet;
  panelFull: ProviderSet;
  acceptsYes: ProviderSet;
  acceptsNo: ProviderSet;
  withLicenses: ProviderSet;
  fields: Record<ListField, AttributeIndex>;
  /** Service regions: providers serving a subdivision of each country (`US` -> those serving `US-CA`...). */
  subdivisionsOfCountry: Map<string, ProviderSet>;
}

const newSet = (words: number): ProviderSet => new Uint32Array(words);
const add = (s: ProviderSet, i: number) => {
  s[i >>> 5]! |= 1 << (i & 31);
};
const has = (s: ProviderSet, i: number) => (s[i >>> 5]! & (1 << (i & 31))) !== 0;

function attributeIndex(words: number): AttributeIndex {
  return { byValue: new Map(), empty: newSet(words) };
}

function addValue(index: AttributeIndex, words: number, value: string, i: number): void {
  let set = index.byValue.get(value);
  if (!set) index.byValue.set(value, (set = newSet(words)));
  add(set, i);
}

/** Builds the index of a provider list (positions follow the list's order). */
export function buildEligibilityIndex(providers: readonly Provider[]): EligibilityIndex {
  const words = Math.ceil(providers.length / 32) || 1;
  const fields = {
    professionCodes: attributeIndex(words),
    specialtyCodes: attributeIndex(words),
    ageGroupCodes: attributeIndex(words),
    modalityCodes: attributeIndex(words),
    serviceRegionCodes: attributeIndex(words),
    insurancePlanCodes: attributeIndex(words),
    languageCodes: attributeIndex(words),
  } satisfies Record<ListField, AttributeIndex>;
  const x = {
    all: newSet(words),
    inactive: newSet(words),
    notSearchable: newSet(words),
    panelFull: newSet(words),
    acceptsYes: newSet(words),
    acceptsNo: newSet(words),
    withLicenses: newSet(words),
  };
  const subdivisionsOfCountry = new Map<string, ProviderSet>();
  providers.forEach((p, i) => {
    add(x.all, i);
    if (p.status !== 'active') add(x.inactive, i);
    if (!p.searchable) add(x.notSearchable, i);
    if (p.panelCapacity !== undefined && (p.panelCurrentCount ?? 0) >= p.panelCapacity) add(x.panelFull, i);
    if (p.acceptsNewClients === true) add(x.acceptsYes, i);
    else if (p.acceptsNewClients === false) add(x.acceptsNo, i);
    if (p.licenseRecords.length > 0) add(x.withLicenses, i);
    const lists: [ListField, readonly string[]][] = [
      ['professionCodes', p.professionCode === undefined || p.professionCode === '' ? [] : [p.professionCode]],
      ['specialtyCodes', p.specialtyCodes],
      ['ageGroupCodes', p.ageGroupCodes],
      ['modalityCodes', p.modalityCodes],
      ['serviceRegionCodes', p.serviceRegionCodes],
      ['insurancePlanCodes', p.insurancePlanCodes],
      ['languageCodes', p.languageCodes],
    ];
    for (const [field, values] of lists) {
      const index = fields[field];
      if (values.length === 0) add(index.empty, i);
      for (const v of values) addValue(index, words, v, i);
    }
    for (const region of p.serviceRegionCodes) {
      if (region.length === 2) continue;
      const country = region.slice(0, 2);
      let set = subdivisionsOfCountry.get(country);
      if (!set) subdivisionsOfCountry.set(country, (set = newSet(words)));
      add(set, i);
    }
  });
  return { providers, words, ...x, fields, subdivisionsOfCountry };
}

/** The bitset of the providers at the given positions (e.g. those offering the requested service). */
export function providerSetOf(index: EligibilityIndex, positions: Iterable<number>): ProviderSet {
  const set = newSet(index.words);
  for (const i of positions) add(set, i);
  return set;
}

/** What screening found: who passed, who is unknown, and the counts the answer reports. */
export interface EligibilityScreen {
  /** Positions of providers passing every hard constraint, ascending. */
  matched: number[];
  /** Positions of providers with missing data and no failed constraint, ascending. */
  unknown: number[];
  excludedCount: number;
  /** Each excluded or unknown provider counted once under its first code in pipeline order; keys in pipeline order. */
  exclusionSummary: Partial<Record<ExclusionCode, number>>;
  /** CONTRACT part 4's 422 rule: licenses requested, someone reached the license step, and nobody there matched it. */
  licenseRegionRejected: boolean;
}

/** One pipeline step: providers that failed it and providers it could not judge (missing data). */
interface Step {
  code: ExclusionCode;
  failed: ProviderSet | undefined;
  unknown: ProviderSet | undefined;
}

function union(words: number, sets: readonly (ProviderSet | undefined)[]): ProviderSet {
  const out = newSet(words);
  for (const s of sets) if (s) for (let w = 0; w < words; w++) out[w]! |= s[w]!;
  return out;
}

/** Failed = has a value but none matches; unknown = has no value. */
function anyOfStep(
  index: EligibilityIndex,
  field: ListField,
  c: AnyOfConstraint | undefined,
  extra: readonly (ProviderSet | undefined)[] = [],
): Step | undefined {
  if (c === undefined) return undefined;
  const attr = index.fields[field];
  const matched = union(index.words, [...c.values.map((v) => attr.byValue.get(v)), ...extra]);
  const failed = newSet(index.words);
  for (let w = 0; w < index.words; w++) failed[w] = index.all[w]! & ~matched[w]! & ~attr.empty[w]!;
  return { code: c.failCode, failed, unknown: attr.empty };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function positions(set: ProviderSet): number[] {
  const out: number[] = [];
  for (let w = 0; w < set.length; w++) {
    let bits = set[w]!;
    while (bits !== 0) {
      const low = bits & -bits;
      out.push(w * 32 + 31 - Math.clz32(low));
      bits ^= low;
    }
  }
  return out;
}

/**
 * Screens every provider of the index against a compiled request with the same verdicts as running
 * `evaluateProvider` on each (steps 2-12 in pipeline order), but on bitsets; `offering` holds the providers with a
 * service of the requested slug. Only the license step looks at providers one by one (those still in the running).
 */
export function screenEligibility(
  index: EligibilityIndex,
  c: CompiledEligibilityRequest,
  offering: ProviderSet,
): EligibilityScreen {
  const { words } = index;
  const notOffering = newSet(words);
  for (let w = 0; w < words; w++) notOffering[w] = index.all[w]! & ~offering[w]!;
  const region = c.serviceRegionCodes;
  const regionExtra: (ProviderSet | undefined)[] = [];
  if (region) {
    const served = index.fields.serviceRegionCodes.byValue;
    for (const country of c.serviceRegionCountries) regionExtra.push(served.get(country));
    for (const code of region.values) if (code.length === 2) regionExtra.push(index.subdivisionsOfCountry.get(code));
  }
  const before: (Step | undefined)[] = [
    { code: 'PROVIDER_INACTIVE', failed: index.inactive, unknown: undefined },
    { code: 'NOT_SEARCHABLE', failed: index.notSearchable, unknown: undefined },
    { code: 'SERVICE_NOT_OFFERED', failed: notOffering, unknown: undefined },
    anyOfStep(index, 'professionCodes', c.professionCodes),
    anyOfStep(index, 'specialtyCodes', c.specialtyCodes),
    anyOfStep(index, 'ageGroupCodes', c.ageGroupCodes),
    anyOfStep(index, 'modalityCodes', c.modalityCodes),
    anyOfStep(index, 'serviceRegionCodes', region, regionExtra),
  ];
  const after: (Step | undefined)[] = [
    anyOfStep(index, 'insurancePlanCodes', c.insurancePlanCodes),
    { code: 'PANEL_FULL', failed: index.panelFull, unknown: undefined },
    anyOfStep(index, 'languageCodes', c.languageCodes),
    c.acceptsNewClients
      ? {
          code: 'NOT_ACCEPTING_NEW_CLIENTS',
          failed: index.acceptsNo,
          unknown: union(words, [index.all]).map((v, w) => v & ~index.acceptsYes[w]! & ~index.acceptsNo[w]!),
        }
      : undefined,
  ];
  const counts = new Array<number>(EXCLUSION_CODES.length).fill(0);
  const failedAny = newSet(words);
  const unknownAny = newSet(words);
  const remaining = index.all.slice();
  const apply = (step: Step | undefined) => {
    if (!step) return;
    const order = exclusionCodeOrder(step.code);
    for (let w = 0; w < words; w++) {
      const f = step.failed ? step.failed[w]! : 0;
      const u = step.unknown ? step.unknown[w]! : 0;
      failedAny[w]! |= f;
      unknownAny[w]! |= u;
      const hit = remaining[w]! & (f | u);
      if (hit !== 0) {
        counts[order]! += popcount(hit);
        remaining[w]! &= ~hit;
      }
    }
  };
  for (const step of before) apply(step);

  let licenseRegionRejected = false;
  const licenses = c.licenseRegionCodes;
  if (licenses !== undefined) {
    // Providers already failed cannot change status; the rest need their license verdict (status and first code).
    const reached = remaining.slice();
    let reachedAny = false;
    let reachedMatched = false;
    const failed = newSet(words);
    const unknown = newSet(words);
    for (let w = 0; w < words; w++) {
      if (reached[w] !== 0) reachedAny = true;
      let bits = index.all[w]! & ~failedAny[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        const i = w * 32 + 31 - Math.clz32(low);
        bits ^= low;
        const p = index.providers[i]!;
        let code: ExclusionCode | undefined;
        let isUnknown = false;
        if (p.licenseRecords.length === 0) {
          code = licenses.unknown.code;
          isUnknown = true;
        } else {
          const outcome = evaluateLicenseRegion(p.licenseRecords, licenses, c);
          if (outcome.status === 'matched') {
            if (has(reached, i)) reachedMatched = true;
          } else {
            code = outcome.code;
            isUnknown = outcome.status === 'unknown';
          }
        }
        if (code === undefined) continue;
        add(isUnknown ? unknown : failed, i);
        if (has(remaining, i)) {
          counts[exclusionCodeOrder(code)]!++;
          remaining[w]! &= ~low;
        }
      }
    }
    for (let w = 0; w < words; w++) {
      failedAny[w]! |= failed[w]!;
      unknownAny[w]! |= unknown[w]!;
    }
    licenseRegionRejected = reachedAny && !reachedMatched;
  }
  for (const step of after) apply(step);

  const matchedSet = newSet(words);
  const unknownSet = newSet(words);
  let excludedCount = 0;
  for (let w = 0; w < words; w++) {
    matchedSet[w] = index.all[w]! & ~failedAny[w]! & ~unknownAny[w]!;
    unknownSet[w] = unknownAny[w]! & ~failedAny[w]!;
    excludedCount += popcount(failedAny[w]!);
  }
  const exclusionSummary: Partial<Record<ExclusionCode, number>> = {};
  EXCLUSION_CODES.forEach((code, i) => {
    if (counts[i]! > 0) exclusionSummary[code] = counts[i]!;
  });
  return {
    matched: positions(matchedSet),
    unknown: positions(unknownSet),
    excludedCount,
    exclusionSummary,
    licenseRegionRejected,
  };
}
