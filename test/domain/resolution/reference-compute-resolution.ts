// FROZEN ORACLE: the pre-top-k implementation of computeResolution (src/domain/resolution/compute-resolution.ts as of
// commit e094b55), copied verbatim except for import paths and this header. It scans every eligible provider and
// ranks every kept slot; the property test asserts the top-k implementation returns exactly the same outcome.
// Do not "fix" or optimize this file: it is the reference the new code is checked against.
// One rule added since, written plainly (marked CONTRACT part 8): a slot is offered only when the matching license is
// valid on its local date; a provider left with no free slot by it is LICENSE_EXPIRED; LICENSE_EXPIRING_SOON per slot.
import type { CalendarConnection, Provider, ProviderService } from '../../../src/domain/provider.js';
import {
  compileEligibilityRequest,
  evaluateProvider,
  type CompiledEligibilityRequest,
  type EligibilityRequest,
  type EligibilityWarning,
  type ProviderEligibility,
} from '../../../src/domain/eligibility.js';
import { EXCLUSION_CODES } from '../../../src/domain/eligibility/exclusion-codes.js';
import { licenseExpiringSoonWarning } from '../../../src/domain/eligibility/license-expiry-text.js';
import { addDays } from '../../../src/domain/availability/local-date.js';
import { localDateAt } from '../../../src/domain/availability/local-date-at.js';
import {
  screenEligibility,
  type EligibilityIndex,
  type EligibilityScreen,
  type ProviderSet,
} from '../../../src/domain/eligibility/eligibility-index.js';
import type { ExclusionCode } from '../../../src/domain/eligibility/exclusion-codes.js';
import { countSlots, scanSlots } from '../../../src/domain/availability/slot-generation.js';
import type { Interval } from '../../../src/domain/availability/busy-intervals.js';
import { zoneDay } from '../../../src/domain/availability/zone-day.js';
import {
  rankOptions,
  type RankedOption,
  type RankingCandidate,
  type RankingPreferences,
  type RankingSlot,
} from './reference-rank-options.js';
import type { RankingPolicy } from '../../../src/domain/ranking/ranking-policy.js';
import { dayPartOfMinute } from '../../../src/domain/ranking/day-part.js';
import { sharedMinuteOfDayReader } from '../../../src/domain/ranking/local-minute-of-day.js';
import { buildZeroResultReasons, type ZeroResultReason } from '../../../src/domain/zero-result-reasons.js';

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
  warnings: readonly EligibilityWarning[];
}

/** The outcome of a resolution before it is shaped into the REST answer. */
export interface ResolutionOutcome {
  /** Verdicts of the providers with missing data and nothing failed (manual review). */
  unknownEligibility: ProviderEligibility[];
  availability: Map<string, ProviderAvailability>;
  /** Providers eligible on steps 1-12 but without an offerable slot (NO_VERIFIED_AVAILABILITY). */
  noAvailabilityProviderIds: string[];
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

/**
 * Computes a resolution: the eligibility pipeline for every provider, live availability for the eligible
 * ones (schedule, bookings, holds, feed busy time), then ranking into at most 10 options.
 * Only the few best free slots per provider and day-part class are kept, so memory stays bounded.
 */
export function computeResolution(input: ResolutionInput): ResolutionOutcome {
  const { compiled, screen } = input.screened ?? screenRequest(input);
  const providers = input.index.providers;
  // Full verdicts (matched constraints, warnings, exclusions) only for those the answer describes: the providers
  // of the options and those routed to manual review, not every matched provider.
  const verdictOf = (i: number) => evaluateProvider(providers[i]!, compiled, true);
  const availability = new Map<string, ProviderAvailability>();
  const candidates: RankingCandidate[] = [];
  const noAvailability: string[] = [];
  const licenseExpired: { providerId: string; expiresAt: string }[] = [];
  const preferredParts = new Set(input.preferences.dayParts ?? []);
  const minuteReader = sharedMinuteOfDayReader;
  const keep = Math.max(1, Math.min(10, input.maxOptionsPerProvider));
  let evaluatedSlots = 0;
  let withVerified = 0;
  const statusByProvider = new Map<string, AvailabilityStatus>();
  const positionById = new Map<string, number>();
  let windowEnd = 0;

  for (const i of screen.matched) {
    const provider = providers[i]!;
    positionById.set(provider.id, i);
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
    const offerable = feedOk || (input.allowUnverifiable && feed?.state === 'unverifiable');
    const busy =
      feed && feed.state === 'ok'
        ? [...(input.busyByProvider.get(provider.id) ?? []), ...feed.busy]
        : (input.busyByProvider.get(provider.id) ?? []);
    // CONTRACT part 8: no slot after the matching license's last valid date.
    const through = verdictOf(i).licenseValidThrough?.expiresAt;
    const to = through !== undefined && addDays(through, 1) < input.window.to ? addDays(through, 1) : input.window.to;
    const zone = schedule.timezone;
    const end = windowStartIn(zone, input.window.to);
    if (end > windowEnd) windowEnd = end;
    // Keep the first `keep` free slots in a preferred day part and the first `keep` outside: the best-scoring
    // slots of a provider are always among them (day-part points are flat, earliest points fall with time).
    // The scan stops once both are full; the number of slots checked is counted without visiting them.
    const inPart: RankingSlot[] = [];
    const outPart: RankingSlot[] = [];
    let free = 0;
    const partZone = input.preferences.timezone;
    const wantOut = preferredParts.size > 0;
    scanSlots(
      { schedule, service, from: input.window.from, to, now: input.now, busy },
      (start, slotEnd, _date, minute, available) => {
        if (!available) return true;
        free++;
        let preferred = true;
        if (wantOut) {
          const m = partZone && partZone !== zone ? (minuteReader(start, partZone) ?? minute) : minute;
          const part = dayPartOfMinute(m);
          preferred = part !== undefined && preferredParts.has(part);
        }
        const bucket = preferred ? inPart : outPart;
        if (bucket.length < keep) bucket.push({ start, end: slotEnd, timezone: zone });
        return inPart.length < keep || (wantOut && outPart.length < keep);
      },
    );
    const evaluated = countSlots({ schedule, service, from: input.window.from, to, now: input.now });
    evaluatedSlots += evaluated;
    const status: AvailabilityStatus = !feedOk
      ? (feed!.state as AvailabilityStatus)
      : free > 0
        ? 'verified_available'
        : 'unavailable';
    availability.set(provider.id, { status, evaluatedSlots: evaluated });
    statusByProvider.set(provider.id, status);
    if (free > 0 && feedOk) withVerified++;
    if (free === 0 && offerable && to !== input.window.to) {
      let later = 0;
      scanSlots({ schedule, service, from: to, to: input.window.to, now: input.now, busy }, (_s, _e, _d, _m, a) => {
        if (a) later++;
        return true;
      });
      if (later > 0) {
        licenseExpired.push({ providerId: provider.id, expiresAt: through! });
        continue;
      }
    }
    if (free === 0 || !offerable) {
      noAvailability.push(provider.id);
      continue;
    }
    candidates.push({
      provider: {
        id: provider.id,
        displayName: provider.displayName,
        languageCodes: provider.languageCodes,
        specialtyCodes: provider.specialtyCodes,
        location: provider.location,
        timezone: provider.timezone ?? zone,
      },
      slots: inPart.concat(outPart),
      workload: input.workloadByProvider.get(provider.id) ?? 0,
      continuity: input.continuityProviderIds.has(provider.id),
      evaluatedSlotCount: evaluated,
    });
  }

  const ranked =
    candidates.length > 0
      ? rankOptions({
          candidates,
          preferences: input.preferences,
          policy: input.policy,
          maxOptionsPerProvider: keep,
          windowEnd: windowEnd || input.now.getTime(),
        })
      : [];
  const verdicts = new Map<number, ProviderEligibility>();
  const options: ComputedOption[] = ranked.map((o) => {
    const idx = positionById.get(o.providerId)!;
    if (!verdicts.has(idx)) verdicts.set(idx, verdictOf(idx));
    return {
      ...o,
      provider: providers[idx]!,
      service: input.servicesOfSlug.get(o.providerId)!,
      availabilityStatus: statusByProvider.get(o.providerId) ?? 'verified_available',
      eligibility: verdicts.get(idx)!,
      warnings: [
        ...verdicts.get(idx)!.warnings.filter((w) => w.code !== 'LICENSE_EXPIRING_SOON'),
        ...(verdicts.get(idx)!.licenseValidThrough !== undefined &&
        addDays(verdicts.get(idx)!.licenseValidThrough!.expiresAt, -30) <= localDateAt(o.slot.start, o.slot.timezone)
          ? [licenseExpiringSoonWarning(o.providerId, verdicts.get(idx)!.licenseValidThrough!, 'licenseRegionCodes')]
          : []),
      ],
    };
  });

  const counted: Partial<Record<ExclusionCode, number>> = { ...screen.exclusionSummary };
  if (noAvailability.length > 0)
    counted.NO_VERIFIED_AVAILABILITY = (counted.NO_VERIFIED_AVAILABILITY ?? 0) + noAvailability.length;
  if (licenseExpired.length > 0) counted.LICENSE_EXPIRED = (counted.LICENSE_EXPIRED ?? 0) + licenseExpired.length;
  const exclusionSummary: Partial<Record<ExclusionCode, number>> = {};
  for (const code of EXCLUSION_CODES) if (counted[code] !== undefined) exclusionSummary[code] = counted[code];
  const summary = {
    providersScanned: providers.length,
    eligibleProviders: screen.matched.length - licenseExpired.length,
    providersWithVerifiedAvailability: withVerified,
    optionsReturned: options.length,
    evaluatedSlots,
  };
  const zeroResultReasons =
    options.length === 0
      ? buildZeroResultReasons({
          exclusionSummary,
          totalProviders: providers.length,
          eligibleProviders: screen.matched.length - licenseExpired.length,
          providersWithVerifiedAvailability: withVerified,
          dateRange: input.window,
          request: input.constraints,
        })
      : [];
  return {
    unknownEligibility: screen.unknown.map(verdictOf),
    availability,
    noAvailabilityProviderIds: noAvailability,
    licenseExpired,
    options,
    summary,
    exclusionSummary,
    unknownProviderIds: screen.unknown.map((i) => providers[i]!.id),
    licenseRegionRejected: screen.licenseRegionRejected,
    zeroResultReasons,
  };
}
