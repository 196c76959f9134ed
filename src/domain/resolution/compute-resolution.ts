import type { CalendarConnection, Provider, ProviderService } from '../provider.js';
import {
  compileEligibilityRequest,
  evaluateProvider,
  type CompiledEligibilityRequest,
  type EligibilityRequest,
  type EligibilityWarning,
  type ProviderEligibility,
} from '../eligibility.js';
import { licenseExpiringSoonWarning } from '../eligibility/license-expiry-text.js';
import { LICENSE_EXPIRY_WARNING_DAYS } from '../eligibility/eligibility-request.js';
import { EXCLUSION_CODES } from '../eligibility/exclusion-codes.js';
import { addDays } from '../availability/local-date.js';
import { localDateAt } from '../availability/local-date-at.js';
import {
  screenEligibility,
  type EligibilityIndex,
  type EligibilityScreen,
  type ProviderSet,
} from '../eligibility/eligibility-index.js';
import type { ExclusionCode } from '../eligibility/exclusion-codes.js';
import type { ReviewGroup } from '../eligibility/review-reason.js';
import { firstFreeSlotStart, slotCount, type SlotCount } from '../availability/slot-generation.js';
import type { Interval } from '../availability/busy-intervals.js';
import { zoneDay } from '../availability/zone-day.js';
import {
  clampInt,
  MAX_OPTIONS_PER_PROVIDER,
  OPTIONS_LIMIT,
  type RankedOption,
  type RankingCandidate,
  type RankingPreferences,
  type RankingSlot,
} from '../ranking/rank-options.js';
import {
  createRankingContext,
  workloadOf,
  type ProviderPoints,
  type RankingContext,
  type ScoredSlot,
} from '../ranking/ranking-context.js';
import type { RankingPolicy } from '../ranking/ranking-policy.js';
import type { DayPart } from '../ranking/day-part.js';
import { buildZeroResultReasons, type ZeroResultReason } from '../zero-result-reasons.js';
import {
  dayPartProfile,
  rememberedDayPartProfile,
  type DayPartProfile,
  type DayPartQuestion,
} from './day-part-profile.js';
import { keepFreeSlots } from './keep-free-slots.js';
import { heapify, popMin, pushHeap } from './min-heap.js';

/** Availability states of SPEC part 3. */
export type AvailabilityStatus =
  | 'verified_available'
  | 'unavailable'
  | 'unverifiable'
  | 'stale'
  | 'calendar_disconnected'
  | 'not_checked';

/** What the external calendar feed of a provider said (fetched by the caller). */
export type FeedState =
  | { state: 'ok'; busy: readonly Interval[] }
  | { state: 'unverifiable' | 'stale' | 'calendar_disconnected'; reason: string };

/** Everything one resolution is computed from; the caller gathers it (no I/O here). */
export interface ResolutionInput {
  /** Every provider of the organization, indexed (positions are the index's). */
  index: EligibilityIndex;
  /** Providers (positions) offering the requested session type. */
  offering: ProviderSet;
  /** providerId -> that provider's service of the requested slug. */
  servicesOfSlug: ReadonlyMap<string, ProviderService>;
  schedulesByProvider: ReadonlyMap<string, readonly CalendarConnection[]>;
  constraints: EligibilityRequest;
  preferences: RankingPreferences;
  window: { from: string; to: string };
  maxOptionsPerProvider: number;
  policy: RankingPolicy;
  now: Date;
  /** Bookings and active holds per provider. */
  busyByProvider: ReadonlyMap<string, readonly Interval[]>;
  feedByProvider: ReadonlyMap<string, FeedState>;
  workloadByProvider: ReadonlyMap<string, number>;
  continuityProviderIds: ReadonlySet<string>;
  allowUnverifiable: boolean;
  /** The eligibility screen of this request, when the caller ran it first (to read busy time of the matched only). */
  screened?: ScreenedRequest | undefined;
}

/** A request compiled and screened against the index. */
export interface ScreenedRequest {
  compiled: CompiledEligibilityRequest;
  screen: EligibilityScreen;
}

/** Runs the eligibility screen alone: the caller reads live availability of the matched providers only. */
export function screenRequest(
  input: Pick<ResolutionInput, 'index' | 'offering' | 'constraints' | 'now' | 'window'>,
): ScreenedRequest {
  const compiled = compileEligibilityRequest(input.constraints, { now: input.now, range: input.window });
  return { compiled, screen: screenEligibility(input.index, compiled, input.offering) };
}

/** Availability of one eligible provider. */
export interface ProviderAvailability {
  status: AvailabilityStatus;
  /** Slots checked (free or busy) in the window. */
  evaluatedSlots: number;
}

/** One ranked option with what the answer needs to describe it. */
export interface ComputedOption extends RankedOption {
  provider: Provider;
  service: ProviderService;
  availabilityStatus: AvailabilityStatus;
  eligibility: ProviderEligibility;
  /**
   * The provider's warnings for this slot: LICENSE_EXPIRING_SOON when its matching license ends within 30 days of the
   * slot's local date (CONTRACT part 8).
   */
  warnings: readonly EligibilityWarning[];
}

/** The outcome of a resolution before it is shaped into the REST answer. */
export interface ResolutionOutcome {
  /**
   * The providers with missing data and nothing failed (manual review), grouped by their review reasons; positions
   * are the index's.
   */
  reviewGroups: ReviewGroup[];
  availability: Map<string, ProviderAvailability>;
  /** Providers eligible on steps 1-12 but without an offerable slot (NO_VERIFIED_AVAILABILITY). */
  noAvailabilityProviderIds: string[];
  /**
   * Providers whose matching license ends inside the range before any of their free slots (CONTRACT part 8): excluded
   * LICENSE_EXPIRED, with that license's last valid date.
   */
  licenseExpired: { providerId: string; expiresAt: string }[];
  options: ComputedOption[];
  summary: {
    providersScanned: number;
    eligibleProviders: number;
    providersWithVerifiedAvailability: number;
    optionsReturned: number;
    evaluatedSlots: number;
  };
  exclusionSummary: Partial<Record<ExclusionCode, number>>;
  unknownProviderIds: string[];
  licenseRegionRejected: boolean;
  zeroResultReasons: ZeroResultReason[];
}

/** Start of the window (epoch ms) in a zone: `from` 00:00 local. */
function windowStartIn(zone: string, date: string): number {
  const d = zoneDay(zone, date);
  return d.localMidnight - d.offsetBefore;
}

// An eligible provider with a free, offerable slot, as the first pass found it.
interface Offerable {
  position: number;
  provider: Provider;
  service: ProviderService;
  schedule: CalendarConnection;
  /** The provider's part of the request's dates: up to its matching license's last valid date. */
  window: { from: string; to: string };
  busy: readonly Interval[];
  count: SlotCount;
  evaluated: number;
  /** No kept slot of the provider starts earlier: its first free slot (or, for a schedule scanned out of start order, its earliest kept one). */
  lowestStart: number;
  /** The kept slots, when the first pass already had to scan for them. */
  slots: RankingSlot[] | undefined;
  workload: number;
  points: ProviderPoints | undefined;
  bound: ScoredSlot | undefined;
  /** The bound knows where the provider's slots fall among the requested day parts (or none were requested). */
  refined: boolean;
}

const NO_BUSY: readonly Interval[] = [];

/**
 * Computes a resolution: the eligibility pipeline for every provider, live availability for the eligible
 * ones (schedule, bookings, holds, feed busy time), then ranking into at most 10 options.
 *
 * Cost follows the options, not the eligible providers: each eligible provider costs its status, its first free
 * slot and its slot count (remembered per schedule); those give the exact summary and what every score is judged
 * against (earliest free start, workload range, window end). Each provider then gets a bound no slot of it can beat
 * (createRankingContext's boundOf), and only providers taken best bound first have their few best free slots
 * scanned and scored, until the next bound is worse than the 10th option found: no slot of it, nor of any provider
 * after it, could enter. The options are exactly those of ranking every provider's kept slots (the ranking's order
 * is total, so the top 10 do not depend on the order providers are ranked in).
 */
export function computeResolution(input: ResolutionInput): ResolutionOutcome {
  const { compiled, screen } = input.screened ?? screenRequest(input);
  const providerAt = input.index.providerAt;
  // Full verdicts (matched constraints, warnings, exclusions) only for those the answer describes: the providers of
  // the options. Manual review takes its reasons from the screening's sets, without a verdict per provider.
  const verdictOf = (i: number) => evaluateProvider(providerAt(i), compiled, true);
  const availability = new Map<string, ProviderAvailability>();
  const noAvailability: string[] = [];
  const licenseExpired: { providerId: string; expiresAt: string }[] = [];
  const offerable: Offerable[] = [];
  const preferredParts = new Set<DayPart>(input.preferences.dayParts ?? []);
  const keep = Math.max(1, Math.min(10, input.maxOptionsPerProvider));
  const { window, now } = input;
  let evaluatedSlots = 0;
  let withVerified = 0;
  let windowEnd = 0;
  const windowEndByZone = new Map<string, number>();
  let earliest = Infinity;
  let minWorkload = Infinity;
  let maxWorkload = -Infinity;

  for (const i of screen.matched) {
    const provider = providerAt(i);
    const service = input.servicesOfSlug.get(provider.id)!;
    const schedule = input.schedulesByProvider.get(provider.id)?.[0];
    if (!schedule) {
      availability.set(provider.id, { status: 'calendar_disconnected', evaluatedSlots: 0 });
      noAvailability.push(provider.id);
      continue;
    }
    const feed = schedule.externalCalendar
      ? (input.feedByProvider.get(provider.id) ?? { state: 'unverifiable' as const, reason: 'feed not fetched' })
      : undefined;
    const feedOk = feed === undefined || feed.state === 'ok';
    const canOffer = feedOk || (input.allowUnverifiable && feed?.state === 'unverifiable');
    const zone = schedule.timezone;
    let end = windowEndByZone.get(zone);
    if (end === undefined) windowEndByZone.set(zone, (end = windowStartIn(zone, window.to)));
    if (end > windowEnd) windowEnd = end;
    // Slots after the matching license's last valid date are not offered (CONTRACT part 8).
    const validThrough = screen.licenseValidThrough.get(i);
    const own = validThrough === undefined ? window : { from: window.from, to: addDays(validThrough, 1) };
    const count = slotCount(schedule, service, own, now);
    const evaluated = count.count;
    evaluatedSlots += evaluated;
    if (!canOffer) {
      // The status names the feed's state and the provider is not offered: whether it has a free slot changes nothing.
      availability.set(provider.id, { status: feed!.state as AvailabilityStatus, evaluatedSlots: evaluated });
      noAvailability.push(provider.id);
      continue;
    }
    // Busy time is a set: the bookings and the feed's events need one list only when both have some.
    let busy = input.busyByProvider.get(provider.id) ?? NO_BUSY;
    if (feed !== undefined && feed.state === 'ok' && feed.busy.length > 0)
      busy = busy.length > 0 ? [...busy, ...feed.busy] : feed.busy;
    let slots: RankingSlot[] | undefined;
    let lowestStart: number;
    let hasFree: boolean;
    if (count.inStartOrder) {
      // With no busy time the first slot is free: the slot count knows where it starts.
      lowestStart =
        busy.length === 0
          ? count.firstStart === Infinity
            ? Number.NaN
            : count.firstStart
          : firstFreeSlotStart({ schedule, service, from: own.from, to: own.to, now, busy });
      hasFree = lowestStart === lowestStart;
    } else {
      // Overlapping windows (a schedule stored without validation): the scan is not in start order, so the first
      // free slot says nothing of the others; keep this provider's slots now, as ranking every provider would.
      const kept = keepFreeSlots({
        schedule,
        service,
        window: own,
        now,
        busy,
        keep,
        preferredParts,
        partZone: input.preferences.timezone,
      });
      slots = kept.slots;
      hasFree = kept.free > 0;
      lowestStart = Infinity;
      for (const s of slots) if (s.start < lowestStart) lowestStart = s.start;
    }
    const status: AvailabilityStatus = !feedOk
      ? (feed!.state as AvailabilityStatus)
      : hasFree
        ? 'verified_available'
        : 'unavailable';
    availability.set(provider.id, { status, evaluatedSlots: evaluated });
    if (hasFree && feedOk) withVerified++;
    if (!hasFree) {
      // Left with no slot by the license's end: free time after it is what the license rules out.
      const later =
        validThrough === undefined
          ? Number.NaN
          : firstFreeSlotStart({ schedule, service, from: own.to, to: window.to, now, busy });
      if (later === later) {
        licenseExpired.push({ providerId: provider.id, expiresAt: validThrough! });
        continue;
      }
      noAvailability.push(provider.id);
      continue;
    }
    const workload = workloadOf(input.workloadByProvider.get(provider.id) ?? 0);
    // Ranking reads these over the providers it ranks, which are those with a kept slot: all of them, as keep >= 1.
    if (lowestStart < earliest) earliest = lowestStart;
    if (workload > maxWorkload) maxWorkload = workload;
    if (workload < minWorkload) minWorkload = workload;
    offerable.push({
      position: i,
      provider,
      service,
      schedule,
      window: own,
      busy,
      count,
      evaluated,
      lowestStart,
      slots,
      workload,
      points: undefined,
      bound: undefined,
      refined: false,
    });
  }

  let options: ComputedOption[] = [];
  // keep is NaN only for a NaN maxOptionsPerProvider: then no slot is kept, and nothing ranks.
  if (offerable.length > 0 && keep >= 1) {
    const context = createRankingContext({
      preferences: input.preferences,
      policy: input.policy,
      perProvider: clampInt(
        keep,
        MAX_OPTIONS_PER_PROVIDER.default,
        MAX_OPTIONS_PER_PROVIDER.min,
        MAX_OPTIONS_PER_PROVIDER.max,
      ),
      limit: OPTIONS_LIMIT,
      earliest,
      minWorkload,
      maxWorkload,
      windowEnd: windowEnd || now.getTime(),
    });
    const { top, byId } = rankBestFirst(input, offerable, context, keep, preferredParts);
    const verdicts = new Map<number, ProviderEligibility>();
    options = context.toOptions(top).map((o) => {
      const entry = byId.get(o.providerId)!;
      const idx = entry.position;
      if (!verdicts.has(idx)) verdicts.set(idx, verdictOf(idx));
      const eligibility = verdicts.get(idx)!;
      return {
        ...o,
        provider: providerAt(idx),
        service: entry.service,
        availabilityStatus: availability.get(o.providerId)?.status ?? 'verified_available',
        eligibility,
        warnings: slotWarnings(eligibility, o.slot.start, entry.schedule.timezone),
      };
    });
  }

  const exclusionSummary = withLaterExclusions(screen.exclusionSummary, {
    LICENSE_EXPIRED: licenseExpired.length,
    NO_VERIFIED_AVAILABILITY: noAvailability.length,
  });
  // A provider left with no slot by its license's end failed the license step after all.
  const eligibleProviders = screen.matched.length - licenseExpired.length;
  const summary = {
    providersScanned: input.index.providerCount,
    eligibleProviders,
    providersWithVerifiedAvailability: withVerified,
    optionsReturned: options.length,
    evaluatedSlots,
  };
  const zeroResultReasons =
    options.length === 0
      ? buildZeroResultReasons({
          exclusionSummary,
          totalProviders: input.index.providerCount,
          eligibleProviders,
          providersWithVerifiedAvailability: withVerified,
          dateRange: input.window,
          request: input.constraints,
        })
      : [];
  return {
    reviewGroups: screen.reviewGroups,
    availability,
    noAvailabilityProviderIds: noAvailability,
    licenseExpired,
    options,
    summary,
    exclusionSummary,
    unknownProviderIds: screen.unknown.map((i) => providerAt(i).id),
    licenseRegionRejected: screen.licenseRegionRejected,
    zeroResultReasons,
  };
}

/** Adds counts found after screening to its exclusion summary, keeping the keys in pipeline order. */
function withLaterExclusions(
  screened: Partial<Record<ExclusionCode, number>>,
  later: Partial<Record<ExclusionCode, number>>,
): Partial<Record<ExclusionCode, number>> {
  const out: Partial<Record<ExclusionCode, number>> = {};
  for (const code of EXCLUSION_CODES) {
    const n = (screened[code] ?? 0) + (later[code] ?? 0);
    if (n > 0) out[code] = n;
  }
  return out;
}

/**
 * The warnings of one option: the provider's, with LICENSE_EXPIRING_SOON judged on the slot's local date (its
 * matching license ends within 30 days of it) rather than today.
 */
function slotWarnings(eligibility: ProviderEligibility, slotStart: number, zone: string): EligibilityWarning[] {
  const out = eligibility.warnings.filter((w) => w.code !== 'LICENSE_EXPIRING_SOON');
  const through = eligibility.licenseValidThrough;
  if (through !== undefined && localDateAt(slotStart, zone) >= addDays(through.expiresAt, -LICENSE_EXPIRY_WARNING_DAYS))
    out.push(licenseExpiringSoonWarning(eligibility.providerId, through, 'licenseRegionCodes'));
  return out;
}

/**
 * Ranks providers best bound first and stops at the first bound worse than the last of a full top list; with
 * weights that admit no bound, ranks every provider in screening order, as ranking them all at once would.
 */
function rankBestFirst(
  input: ResolutionInput,
  offerable: Offerable[],
  context: RankingContext,
  keep: number,
  preferredParts: ReadonlySet<DayPart>,
): { top: ScoredSlot[]; byId: Map<string, Offerable> } {
  const top: ScoredSlot[] = [];
  const byId = new Map<string, Offerable>();
  // At most `keep` free slots per bucket are ranked (bucket.length < keep: the ceiling for a fractional keep).
  const perBucket = Math.ceil(keep);
  const dayParts = preferredParts.size > 0;
  const { preferences } = input;
  const question: DayPartQuestion = {
    window: input.window,
    now: input.now,
    preferredParts,
    partZone: preferences.timezone,
    key: `${preferences.timezone ?? ''}|${[...preferredParts].sort().join(',')}`,
  };
  // With day parts requested, the bound uses the schedule's day-part profile: where its slots fall among them (a walk
  // of the window, remembered per schedule shape). When it is not remembered yet, a first bound assumes any slot may
  // get their points and both buckets fill, and only providers that bound survives are walked, so a cold request
  // walks few windows.
  const boundWith = (e: Offerable, profile: DayPartProfile | undefined) => {
    const maxKept =
      profile === undefined
        ? dayParts
          ? 2 * perBucket
          : perBucket
        : Math.min(perBucket, profile.inBucket) + Math.min(perBucket, profile.outBucket);
    const preferredFrom = profile === undefined ? -Infinity : profile.preferredFrom;
    e.bound = context.boundOf({
      providerId: e.provider.id,
      points: e.points!,
      workload: e.workload,
      lowestStart: e.lowestStart,
      preferredFrom,
      maxKept,
      evaluated: e.evaluated,
    });
    e.refined = !dayParts || profile !== undefined;
  };
  let bounded = true;
  for (const e of offerable) {
    e.points = context.providerPoints(e.provider, e.workload, input.continuityProviderIds.has(e.provider.id));
    boundWith(e, dayParts ? rememberedDayPartProfile(e.count, question) : undefined);
    if (e.bound === undefined) bounded = false;
  }
  const rank = (e: Offerable) => {
    byId.set(e.provider.id, e);
    context.addCandidate(top, candidateOf(input, e, keep, preferredParts), e.points!);
  };
  if (!bounded) {
    for (const e of offerable) rank(e);
    return { top, byId };
  }
  const byBound = (a: Offerable, b: Offerable) => context.compare(a.bound!, b.bound!);
  heapify(offerable, byBound);
  for (let e = popMin(offerable, byBound); e !== undefined; e = popMin(offerable, byBound)) {
    const last = top.length >= context.limit ? top[top.length - 1] : undefined;
    // Every provider left has a bound at least as bad: none of their slots can enter either.
    if (last !== undefined && context.compare(e.bound!, last) > 0) break;
    if (!e.refined) {
      // A refined bound is never better than the first one, and still bounds every slot: back in line with it.
      // The profile walks the provider's own dates (its count's), which its license may cut short.
      const asked = e.window === input.window ? question : { ...question, window: e.window };
      boundWith(e, dayPartProfile(e.count, e.schedule, e.service, asked));
      pushHeap(offerable, e, byBound);
      continue;
    }
    rank(e);
  }
  return { top, byId };
}

// The ranking candidate of a provider, with its kept free slots (scanned now unless the first pass kept them).
function candidateOf(
  input: ResolutionInput,
  e: Offerable,
  keep: number,
  preferredParts: ReadonlySet<DayPart>,
): RankingCandidate {
  const { provider, schedule } = e;
  const slots =
    e.slots ??
    keepFreeSlots({
      schedule,
      service: e.service,
      window: e.window,
      now: input.now,
      busy: e.busy,
      keep,
      preferredParts,
      partZone: input.preferences.timezone,
    }).slots;
  return {
    provider: {
      id: provider.id,
      displayName: provider.displayName,
      languageCodes: provider.languageCodes,
      specialtyCodes: provider.specialtyCodes,
      location: provider.location,
      timezone: provider.timezone ?? schedule.timezone,
    },
    slots,
    workload: input.workloadByProvider.get(provider.id) ?? 0,
    continuity: input.continuityProviderIds.has(provider.id),
    evaluatedSlotCount: e.evaluated,
  };
}
