import type { Provider } from '../provider.js';
import type { AnyOfConstraint, CompiledEligibilityRequest } from './eligibility-request.js';
import { NEW_CLIENTS_UNKNOWN } from './evaluate-provider.js';
import { EXCLUSION_CODES, exclusionCodeOrder, type ExclusionCode } from './exclusion-codes.js';
import { buildLicenseIndex, screenLicenses, type LicenseIndex } from './license-index.js';
import { add, newSet, popcount, positions, union, type ProviderSet } from './provider-set.js';
import { reviewReasonOf, type ReviewGroup, type ReviewReason } from './review-reason.js';

export type { ProviderSet } from './provider-set.js';

/** The per-value index of one list attribute: who has each value, and who has none. */
export interface AttributeIndex {
  byValue: Map<string, ProviderSet>;
  empty: ProviderSet;
}

export type ListField =
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
  /** Every provider (a graph read from columns builds them all on first use: the resolution path reads providerAt). */
  providers: readonly Provider[];
  /** How many providers the index covers. */
  providerCount: number;
  /** The provider at a position (built on first use when the graph is read from columns). */
  providerAt(i: number): Provider;
  words: number;
  all: ProviderSet;
  inactive: ProviderSet;
  notSearchable: ProviderSet;
  panelFull: ProviderSet;
  acceptsYes: ProviderSet;
  acceptsNo: ProviderSet;
  /** License records by region; the license step is judged on them at each request's clock. */
  licenses: LicenseIndex;
  fields: Record<ListField, AttributeIndex>;
  /** Service regions: providers serving a subdivision of each country (`US` -> those serving `US-CA`...). */
  subdivisionsOfCountry: Map<string, ProviderSet>;
}

/** An empty attribute index over `words` words. */
export function attributeIndex(words: number): AttributeIndex {
  return { byValue: new Map(), empty: newSet(words) };
}

/** The set of a value of an attribute (made empty on first use). */
export function valueSet(index: AttributeIndex, words: number, value: string): ProviderSet {
  let set = index.byValue.get(value);
  if (!set) index.byValue.set(value, (set = newSet(words)));
  return set;
}

function addValue(index: AttributeIndex, words: number, value: string, i: number): void {
  add(valueSet(index, words, value), i);
}

/** The empty sets of an index of `words` x 32 providers, filled by the builders (from objects, or from columns). */
export function emptyEligibilitySets(words: number) {
  return {
    fields: {
      professionCodes: attributeIndex(words),
      specialtyCodes: attributeIndex(words),
      ageGroupCodes: attributeIndex(words),
      modalityCodes: attributeIndex(words),
      serviceRegionCodes: attributeIndex(words),
      insurancePlanCodes: attributeIndex(words),
      languageCodes: attributeIndex(words),
    } satisfies Record<ListField, AttributeIndex>,
    x: {
      all: newSet(words),
      inactive: newSet(words),
      notSearchable: newSet(words),
      panelFull: newSet(words),
      acceptsYes: newSet(words),
      acceptsNo: newSet(words),
    },
    subdivisionsOfCountry: new Map<string, ProviderSet>(),
  };
}

/** Builds the index of a provider list (positions follow the list's order). */
export function buildEligibilityIndex(providers: readonly Provider[]): EligibilityIndex {
  const words = Math.ceil(providers.length / 32) || 1;
  const { fields, x, subdivisionsOfCountry } = emptyEligibilitySets(words);
  // One pass without a list per provider: a graph of 100,000 providers is indexed on its first resolution.
  const listOf = (index: AttributeIndex, values: readonly string[], i: number) => {
    if (values.length === 0) add(index.empty, i);
    for (let k = 0; k < values.length; k++) addValue(index, words, values[k]!, i);
  };
  for (let i = 0; i < providers.length; i++) {
    const p = providers[i]!;
    add(x.all, i);
    if (p.status !== 'active') add(x.inactive, i);
    if (!p.searchable) add(x.notSearchable, i);
    if (p.panelCapacity !== undefined && (p.panelCurrentCount ?? 0) >= p.panelCapacity) add(x.panelFull, i);
    if (p.acceptsNewClients === true) add(x.acceptsYes, i);
    else if (p.acceptsNewClients === false) add(x.acceptsNo, i);
    if (p.professionCode === undefined || p.professionCode === '') add(fields.professionCodes.empty, i);
    else addValue(fields.professionCodes, words, p.professionCode, i);
    listOf(fields.specialtyCodes, p.specialtyCodes, i);
    listOf(fields.ageGroupCodes, p.ageGroupCodes, i);
    listOf(fields.modalityCodes, p.modalityCodes, i);
    listOf(fields.serviceRegionCodes, p.serviceRegionCodes, i);
    listOf(fields.insurancePlanCodes, p.insurancePlanCodes, i);
    listOf(fields.languageCodes, p.languageCodes, i);
    for (const region of p.serviceRegionCodes) {
      if (region.length === 2) continue;
      const country = region.slice(0, 2);
      let set = subdivisionsOfCountry.get(country);
      if (!set) subdivisionsOfCountry.set(country, (set = newSet(words)));
      add(set, i);
    }
  }
  return {
    providers,
    providerCount: providers.length,
    providerAt: (i) => providers[i]!,
    words,
    ...x,
    licenses: buildLicenseIndex(providers),
    fields,
    subdivisionsOfCountry,
  };
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
  /**
   * The unknown providers grouped by their manual-review reasons (the unknown exclusions `evaluateProvider` would list,
   * in pipeline order), so that manual review needs no verdict per provider.
   */
  reviewGroups: ReviewGroup[];
  excludedCount: number;
  /** Each excluded or unknown provider counted once under its first code in pipeline order; keys in pipeline order. */
  exclusionSummary: Partial<Record<ExclusionCode, number>>;
  /** CONTRACT part 4's 422 rule: licenses requested, someone reached the license step, and nobody there matched it. */
  licenseRegionRejected: boolean;
  /**
   * Matched providers (positions) whose matching license ends before the range's last date, with its last valid
   * date: their slots after it are not offered (CONTRACT part 8).
   */
  licenseValidThrough: ReadonlyMap<number, string>;
}

/**
 * One pipeline step: providers that failed it and providers it could not judge (missing data), with the review reason
 * of the latter.
 */
interface Step {
  code: ExclusionCode;
  failed: ProviderSet | undefined;
  unknown: ProviderSet | undefined;
  reason?: ReviewReason | undefined;
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
  return { code: c.failCode, failed, unknown: attr.empty, reason: reviewReasonOf(c.unknown) };
}

/**
 * The license step as steps of one code each, in pipeline order (each provider is in at most one), and the providers
 * it matched.
 */
function licenseSteps(
  index: EligibilityIndex,
  c: CompiledEligibilityRequest,
  licenses: AnyOfConstraint,
): { steps: Step[]; matched: ProviderSet; validThrough: ReadonlyMap<number, string> } {
  const l = screenLicenses(index.licenses, index.all, licenses, c);
  const words = index.words;
  const selfReported = newSet(words);
  for (let w = 0; w < words; w++) selfReported[w] = l.unverified[w]! & ~l.unverifiedStale[w]!;
  const unverified = (sourceStatus: 'stale' | 'self_reported') =>
    reviewReasonOf({ code: 'LICENSE_UNVERIFIED', field: licenses.field, required: licenses.values, sourceStatus });
  const steps: Step[] = [
    { code: 'LICENSE_REGION_MISMATCH', failed: l.regionMismatch, unknown: undefined },
    { code: 'LICENSE_EXPIRED', failed: l.expired, unknown: undefined },
    // Both halves count under LICENSE_UNVERIFIED; they differ only in the provider data their review reason names.
    { code: 'LICENSE_UNVERIFIED', failed: undefined, unknown: l.unverifiedStale, reason: unverified('stale') },
    { code: 'LICENSE_UNVERIFIED', failed: undefined, unknown: selfReported, reason: unverified('self_reported') },
    { code: 'LICENSE_MISSING', failed: undefined, unknown: l.missing, reason: reviewReasonOf(licenses.unknown) },
  ];
  return { steps, matched: l.matched, validThrough: l.validThrough };
}

/**
 * Splits the unknown providers into groups with the same review reasons: each step that left some of a group unknown
 * splits it into those it names (the reason appended) and the others. Groups hold their reasons in pipeline order.
 */
function groupByReasons(words: number, unknown: ProviderSet, steps: readonly Step[]): ReviewGroup[] {
  let groups: ReviewGroup[] = [{ reasons: [], providers: unknown }];
  for (const step of steps) {
    if (step.unknown === undefined || step.reason === undefined) continue;
    const next: ReviewGroup[] = [];
    for (const g of groups) {
      const inside = newSet(words);
      const outside = newSet(words);
      let anyIn = false;
      let anyOut = false;
      for (let w = 0; w < words; w++) {
        const i = g.providers[w]! & step.unknown[w]!;
        const o = g.providers[w]! & ~step.unknown[w]!;
        inside[w] = i;
        outside[w] = o;
        if (i !== 0) anyIn = true;
        if (o !== 0) anyOut = true;
      }
      if (anyIn) next.push({ reasons: [...g.reasons, step.reason], providers: anyOut ? inside : g.providers });
      if (anyOut) next.push(anyIn ? { reasons: g.reasons, providers: outside } : g);
    }
    groups = next;
  }
  return groups;
}

/**
 * Screens every provider of the index against a compiled request with the same verdicts as running
 * `evaluateProvider` on each (steps 2-12 in pipeline order), but on bitsets; `offering` holds the providers with a
 * service of the requested slug. No step looks at providers one by one: the license step judges the records of the
 * requested regions (license-index.ts).
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
  const licenses = c.licenseRegionCodes === undefined ? undefined : licenseSteps(index, c, c.licenseRegionCodes);
  const after: (Step | undefined)[] = [
    anyOfStep(index, 'insurancePlanCodes', c.insurancePlanCodes),
    { code: 'PANEL_FULL', failed: index.panelFull, unknown: undefined },
    anyOfStep(index, 'languageCodes', c.languageCodes),
    c.acceptsNewClients
      ? {
          code: 'NOT_ACCEPTING_NEW_CLIENTS',
          failed: index.acceptsNo,
          unknown: union(words, [index.all]).map((v, w) => v & ~index.acceptsYes[w]! & ~index.acceptsNo[w]!),
          reason: reviewReasonOf(NEW_CLIENTS_UNKNOWN),
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
  // The 422 rule looks at the providers still in the running when the license step starts.
  let reachedAny = false;
  let reachedMatched = false;
  if (licenses !== undefined) {
    for (let w = 0; w < words; w++) {
      if (remaining[w] !== 0) reachedAny = true;
      if ((remaining[w]! & licenses.matched[w]!) !== 0) reachedMatched = true;
    }
    for (const step of licenses.steps) apply(step);
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
  const unknown = positions(unknownSet);
  return {
    matched: positions(matchedSet),
    unknown,
    reviewGroups:
      unknown.length === 0
        ? []
        : groupByReasons(words, unknownSet, [...before, ...(licenses?.steps ?? []), ...after].filter(isStep)),
    excludedCount,
    exclusionSummary,
    licenseRegionRejected: reachedAny && !reachedMatched,
    licenseValidThrough: licenses?.validThrough ?? NO_CUTS,
  };
}

const NO_CUTS: ReadonlyMap<number, string> = new Map();

/** Narrows away the steps a request did not ask for. */
function isStep(s: Step | undefined): s is Step {
  return s !== undefined;
}
