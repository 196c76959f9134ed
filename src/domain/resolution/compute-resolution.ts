import type { CalendarConnection, Provider, ProviderService } from '../provider.js';
import { compileEligibilityRequest, evaluateProviders, isLicenseRegionRejection, summarizeEligibility, type EligibilityRequest, type ProviderEligibility } from '../eligibility.js';
import type { ExclusionCode } from '../eligibility/exclusion-codes.js';
import { scanSlots } from '../availability/slot-generation.js';
import type { Interval } from '../availability/busy-intervals.js';
import { zoneDay } from '../availability/zone-day.js';
import { rankOptions, type RankedOption, type RankingCandidate, type RankingPreferences, type RankingSlot } from '../ranking/rank-options.js';
import type { RankingPolicy } from '../ranking/ranking-policy.js';
import { dayPartOfMinute } from '../ranking/day-part.js';
import { createMinuteOfDayReader } from '../ranking/local-minute-of-day.js';
import { buildZeroResultReasons, type ZeroResultReason } from '../zero-result-reasons.js';

/** Availability states of SPEC part 3. */
export type AvailabilityStatus = 'verified_available' | 'unavailable' | 'unverifiable' | 'stale' | 'calendar_disconnected' | 'not_checked';

/** What the external calendar feed of a provider said (fetched by the caller). */
export type FeedState = { state: 'ok'; busy: readonly Interval[] } | { state: 'unverifiable' | 'stale' | 'calendar_disconnected'; reason: string };

/** Everything one resolution is computed from; the caller gathers it (no I/O here). */
export interface ResolutionInput {
  providers: readonly Provider[];
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
}

/** Availability of one eligible provider. */
export interface ProviderAvailability {
  status: AvailabilityStatus;
  evaluatedSlots: number;
  freeSlots: number;
}

/** One ranked option with what the answer needs to describe it. */
export interface ComputedOption extends RankedOption {
  provider: Provider;
  service: ProviderService;
  availabilityStatus: AvailabilityStatus;
  eligibility: ProviderEligibility;
}

/** The outcome of a resolution before it is shaped into the REST answer. */
export interface ResolutionOutcome {
  eligibility: ProviderEligibility[];
  availability: Map<string, ProviderAvailability>;
  /** Providers eligible on steps 1-12 but without an offerable slot (NO_VERIFIED_AVAILABILITY). */
  noAvailabilityProviderIds: string[];
  options: ComputedOption[];
  summary: { providersScanned: number; eligibleProviders: number; providersWithVerifiedAvailability: number; optionsReturned: number; evaluatedSlots: number };
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
  const compiled = compileEligibilityRequest(input.constraints, { now: input.now });
  const eligibility = evaluateProviders(input.providers, compiled, (p) => input.servicesOfSlug.has(p.id));
  const licenseRegionRejected = isLicenseRegionRejection(compiled, eligibility);
  const base = summarizeEligibility(eligibility);
  const availability = new Map<string, ProviderAvailability>();
  const candidates: RankingCandidate[] = [];
  const noAvailability: string[] = [];
  const preferredParts = new Set(input.preferences.dayParts ?? []);
  const minuteReader = createMinuteOfDayReader();
  const keep = Math.max(1, Math.min(10, input.maxOptionsPerProvider));
  let evaluatedSlots = 0;
  let withVerified = 0;
  const statusByProvider = new Map<string, AvailabilityStatus>();
  let windowEnd = 0;

  for (let i = 0; i < input.providers.length; i++) {
    const result = eligibility[i]!;
    if (result.status !== 'matched') continue;
    const provider = input.providers[i]!;
    const service = input.servicesOfSlug.get(provider.id)!;
    const schedule = input.schedulesByProvider.get(provider.id)?.[0];
    if (!schedule) {
      availability.set(provider.id, { status: 'calendar_disconnected', evaluatedSlots: 0, freeSlots: 0 });
      noAvailability.push(provider.id);
      continue;
    }
    const feed = schedule.externalCalendar ? input.feedByProvider.get(provider.id) ?? { state: 'unverifiable' as const, reason: 'feed not fetched' } : undefined;
    const feedOk = feed === undefined || feed.state === 'ok';
    const offerable = feedOk || (input.allowUnverifiable && feed?.state === 'unverifiable');
    const busy = feed && feed.state === 'ok' ? [...(input.busyByProvider.get(provider.id) ?? []), ...feed.busy] : input.busyByProvider.get(provider.id) ?? [];
    const zone = schedule.timezone;
    const end = windowStartIn(zone, input.window.to);
    if (end > windowEnd) windowEnd = end;
    // Keep the first `keep` free slots in a preferred day part and the first `keep` outside: the best-scoring
    // slots of a provider are always among them (day-part points are flat, earliest points fall with time).
    const inPart: RankingSlot[] = [];
    const outPart: RankingSlot[] = [];
    let evaluated = 0;
    let free = 0;
    const partZone = input.preferences.timezone;
    scanSlots({ schedule, service, from: input.window.from, to: input.window.to, now: input.now, busy }, (start, slotEnd, _date, minute, available) => {
      evaluated++;
      if (!available) return;
      free++;
      if (inPart.length >= keep && (outPart.length >= keep || preferredParts.size === 0)) return;
      let preferred = false;
      if (preferredParts.size > 0) {
        const m = partZone && partZone !== zone ? minuteReader(start, partZone) ?? minute : minute;
        const part = dayPartOfMinute(m);
        preferred = part !== undefined && preferredParts.has(part);
      }
      const bucket = preferred || preferredParts.size === 0 ? inPart : outPart;
      if (bucket.length < keep) bucket.push({ start, end: slotEnd, timezone: zone });
    });
    evaluatedSlots += evaluated;
    const status: AvailabilityStatus = !feedOk ? feed!.state as AvailabilityStatus : free > 0 ? 'verified_available' : 'unavailable';
    availability.set(provider.id, { status, evaluatedSlots: evaluated, freeSlots: free });
    statusByProvider.set(provider.id, status);
    if (free > 0 && feedOk) withVerified++;
    if (free === 0 || !offerable) {
      noAvailability.push(provider.id);
      continue;
    }
    candidates.push({
      provider: { id: provider.id, displayName: provider.displayName, languageCodes: provider.languageCodes, specialtyCodes: provider.specialtyCodes, location: provider.location, timezone: provider.timezone ?? zone },
      slots: inPart.concat(outPart),
      workload: input.workloadByProvider.get(provider.id) ?? 0,
      continuity: input.continuityProviderIds.has(provider.id),
      evaluatedSlotCount: evaluated,
    });
  }

  const ranked = candidates.length > 0
    ? rankOptions({ candidates, preferences: input.preferences, policy: input.policy, maxOptionsPerProvider: keep, windowEnd: windowEnd || input.now.getTime() })
    : [];
  const providerIndex = new Map(input.providers.map((p, i) => [p.id, i]));
  const options: ComputedOption[] = ranked.map((o) => {
    const idx = providerIndex.get(o.providerId)!;
    return { ...o, provider: input.providers[idx]!, service: input.servicesOfSlug.get(o.providerId)!, availabilityStatus: statusByProvider.get(o.providerId) ?? 'verified_available', eligibility: eligibility[idx]! };
  });

  const exclusionSummary: Partial<Record<ExclusionCode, number>> = { ...base.exclusionSummary };
  if (noAvailability.length > 0) exclusionSummary.NO_VERIFIED_AVAILABILITY = (exclusionSummary.NO_VERIFIED_AVAILABILITY ?? 0) + noAvailability.length;
  const summary = {
    providersScanned: input.providers.length,
    eligibleProviders: base.eligibleProviders,
    providersWithVerifiedAvailability: withVerified,
    optionsReturned: options.length,
    evaluatedSlots,
  };
  const zeroResultReasons = options.length === 0
    ? buildZeroResultReasons({ exclusionSummary, totalProviders: input.providers.length, eligibleProviders: base.eligibleProviders, providersWithVerifiedAvailability: withVerified, dateRange: input.window, request: input.constraints })
    : [];
  return {
    eligibility,
    availability,
    noAvailabilityProviderIds: noAvailability,
    options,
    summary,
    exclusionSummary,
    unknownProviderIds: eligibility.filter((e) => e.status === 'unknown').map((e) => e.providerId),
    licenseRegionRejected,
    zeroResultReasons,
  };
}

