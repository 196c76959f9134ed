/**
 * Random resolution inputs for the top-k property test: a seeded generator builds the graph (providers, schedules,
 * services, busy time, feeds, workloads) the way org-graph.ts shapes it, and knobs drawn by fast-check choose how
 * dense, tied or unusual it is, so a failing case shrinks to few providers and a short window.
 */
import fc from 'fast-check';
import type { Interval } from '../../../src/domain/availability/busy-intervals.js';
import type { EligibilityRequest } from '../../../src/domain/eligibility.js';
import { buildEligibilityIndex, providerSetOf } from '../../../src/domain/eligibility/eligibility-index.js';
import type {
  CalendarConnection,
  LicenseRecord,
  Provider,
  ProviderService,
  TimeWindow,
  Weekday,
} from '../../../src/domain/provider.js';
import type { DayPart } from '../../../src/domain/ranking/day-part.js';
import type { RankingPreferences } from '../../../src/domain/ranking/rank-options.js';
import type { RankingPolicy, RankingWeights, TieBreaker } from '../../../src/domain/ranking/ranking-policy.js';
import {
  screenRequest,
  type FeedState,
  type ResolutionInput,
} from '../../../src/domain/resolution/compute-resolution.js';
import { createSeededRandom } from '../../helpers/seeded-random.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const WEEKDAYS: Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
// DST zones of both hemispheres, half-hour and 45-minute offsets, a zone changing at midnight, and fixed ones.
const ZONES = [
  'America/New_York',
  'America/Los_Angeles',
  'Europe/London',
  'Australia/Sydney',
  'America/St_Johns',
  'Pacific/Chatham',
  'America/Santiago',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'UTC',
];
// Window starts near offset changes of 2026 (US 8 Mar / 1 Nov, EU 29 Mar / 25 Oct, Sydney 5 Apr / 4 Oct, Santiago 5 Apr / 6 Sep) and ordinary days.
const FIRST_DATES = [
  '2026-03-05',
  '2026-03-26',
  '2026-04-02',
  '2026-09-03',
  '2026-10-01',
  '2026-10-22',
  '2026-10-29',
  '2026-06-15',
];
const LANGS = ['en', 'es', 'zh'];
const SPECIALTIES = ['anxiety', 'depression', 'trauma'];
const REGIONS = ['US-CA', 'US-NY', 'US-TX'];
const INSURERS = ['uhc', 'aetna', 'self_pay'];
const LOCATIONS = ['Brooklyn, NY', 'Queens, NY', 'Austin, TX', undefined];
const WEIGHTS = [0, 0, 5, 10, 15, 25, 40, 12.345, 10_000];

/** The knobs of one scenario; fast-check draws and shrinks them, `seed` drives everything else. */
export interface ScenarioKnobs {
  seed: number;
  providers: number;
  days: number;
  /** Schedule templates providers share (1 = everyone has the same hours). */
  templates: number;
  /** The templates share one timezone (so their slots start at the same instants). */
  sameZone: boolean;
  /** Whole-hour windows and one 60-minute service: slots of different providers start together (ties everywhere). */
  aligned: boolean;
  busyDensity: 'none' | 'sparse' | 'dense';
  equalWorkloads: boolean;
  maxOptionsPerProvider: number;
  constrained: boolean;
  withPreferences: boolean;
  defaultPolicy: boolean;
  feeds: boolean;
  allowUnverifiable: boolean;
  overlappingWindows: boolean;
  passScreened: boolean;
}

/** Arbitrary of ScenarioKnobs. */
export const scenarioKnobs: fc.Arbitrary<ScenarioKnobs> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  providers: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 12, max: 50 })),
  days: fc.integer({ min: 1, max: 14 }),
  // Ties are the common case in production (shared office hours, default policy): one template often.
  templates: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 6 })),
  sameZone: fc.boolean(),
  aligned: fc.boolean(),
  busyDensity: fc.constantFrom('none' as const, 'sparse' as const, 'dense' as const),
  equalWorkloads: fc.boolean(),
  maxOptionsPerProvider: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 10 })),
  constrained: fc.boolean(),
  withPreferences: fc.boolean(),
  defaultPolicy: fc.boolean(),
  feeds: fc.boolean(),
  allowUnverifiable: fc.boolean(),
  overlappingWindows: fc.boolean(),
  passScreened: fc.boolean(),
});

/** The shared seeded generator, plus `some`: up to `max` distinct elements of a list (possibly none). */
function random(seed: number) {
  const r = createSeededRandom(seed);
  return {
    ...r,
    some: <T>(xs: readonly T[], max = xs.length): T[] => r.sample(xs, r.int(0, Math.min(max, xs.length))),
  };
}
type Random = ReturnType<typeof random>;

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** 1-3 windows on a 5-minute grid (whole hours when `aligned`), disjoint unless `overlap`; ends may be 24:00. */
function randomWindows(r: Random, overlap: boolean, aligned: boolean): TimeWindow[] {
  const windows: TimeWindow[] = [];
  let at = aligned ? r.int(5, 12) * 60 : r.int(0, 20) * 30;
  for (let n = r.int(1, 3); n > 0 && at < 1440; n--) {
    const start = at;
    const end = Math.min(1440, start + (aligned ? r.int(1, 8) * 60 : r.int(1, 18) * 25));
    windows.push({ start: hhmm(start), end: hhmm(end) });
    at =
      overlap && r.chance(0.5)
        ? start + r.int(0, 6) * (aligned ? 60 : 10)
        : end + (aligned ? r.int(0, 2) * 60 : r.int(0, 8) * 15);
  }
  return windows;
}

function randomDays(r: Random, overlap: boolean, aligned: boolean): CalendarConnection['days'] {
  const days: CalendarConnection['days'] = {};
  const usual = randomWindows(r, overlap, aligned);
  for (const d of WEEKDAYS) {
    if (r.chance(0.15)) continue;
    days[d] = { enabled: !r.chance(0.2), slots: r.chance(0.7) ? usual : randomWindows(r, overlap, aligned) };
  }
  return days;
}

function randomLicense(r: Random, now: number): LicenseRecord {
  return {
    licenseTypeCode: 'psy',
    regionCode: r.pick(REGIONS),
    status: r.pick(['active', 'active', 'active', 'expired'] as const),
    // Half the dated licenses end within a fortnight: inside the window, cutting a provider's slots short.
    expiresAt: r.chance(0.1)
      ? undefined
      : new Date(now + (r.chance(0.5) ? r.next() * 16 - 1 : r.next() * 400 - 30) * DAY).toISOString().slice(0, 10),
    verifiedAt: r.chance(0.2) ? undefined : new Date(now - r.next() * 300 * DAY).toISOString(),
  };
}

function randomPolicy(r: Random): RankingPolicy {
  const weights: RankingWeights = {
    preferredLanguage: r.pick(WEIGHTS),
    preferredDayPart: r.pick(WEIGHTS),
    earliestAvailable: r.pick(WEIGHTS),
    providerContinuity: r.pick(WEIGHTS),
    workloadBalance: r.pick(WEIGHTS),
    preferredLocation: r.pick(WEIGHTS),
  };
  const all: TieBreaker[] = ['earliest_start', 'lowest_workload', 'provider_id'];
  const tieBreakers = r.some(all, 3);
  return { id: 'pol_random', version: 1, weights, tieBreakers };
}

function randomPreferences(r: Random): RankingPreferences {
  const parts: DayPart[] = ['morning', 'afternoon', 'evening'];
  return {
    ...(r.chance(0.4) ? { languageCodes: r.some(LANGS, 2) } : {}),
    ...(r.chance(0.6) ? { dayParts: r.some(parts, 2) } : {}),
    ...(r.chance(0.4) ? { timezone: r.pick([...ZONES, '+05:30', 'Not/AZone']) } : {}),
    ...(r.chance(0.5) ? { earliestAvailable: r.chance(0.8) } : {}),
    ...(r.chance(0.3) ? { location: r.pick(['brooklyn', ' NY ', 'austin']) } : {}),
    ...(r.chance(0.3) ? { specialtyCodes: r.some(SPECIALTIES, 2) } : {}),
  };
}

/** Busy intervals of a provider: none, a few, or most of the window; unsorted, overlapping and touching ones included. */
function randomBusy(r: Random, density: ScenarioKnobs['busyDensity'], from: number, to: number): Interval[] {
  if (density === 'none' || r.chance(0.3)) return [];
  const count = density === 'sparse' ? r.int(1, 4) : r.int(10, 60);
  const busy: Interval[] = [];
  for (let i = 0; i < count; i++) {
    const start = from - DAY + Math.floor((r.next() * (to - from + 2 * DAY)) / (5 * MINUTE)) * 5 * MINUTE;
    const length = density === 'dense' ? r.int(6, 60) * 5 * MINUTE : r.int(1, 24) * 5 * MINUTE;
    busy.push({ start, end: start + length });
    if (r.chance(0.1)) busy.push({ start: start + length, end: start + length + 30 * MINUTE });
  }
  if (r.chance(0.5)) busy.sort((a, b) => a.start - b.start);
  return busy;
}

/**
 * The resolutions of a scenario: three requests on one graph (other preferences, options per provider and policy, and
 * `now` moved by minutes or days either way), so what is remembered per schedule between requests is exercised too.
 */
export function buildScenario(k: ScenarioKnobs): ResolutionInput[] {
  const r = random(k.seed);
  const from = r.pick(FIRST_DATES);
  const fromMs = Date.parse(`${from}T00:00:00Z`);
  const to = new Date(fromMs + k.days * DAY).toISOString().slice(0, 10);
  const toMs = fromMs + k.days * DAY;
  // `now` inside the window (or a little before it), on a minute or anywhere.
  const nowMs = fromMs - 12 * 3_600_000 + Math.floor(r.next() * (toMs - fromMs + 12 * 3_600_000));
  const now = new Date(r.chance(0.5) ? nowMs - (nowMs % MINUTE) : nowMs);

  const commonZone = r.pick(ZONES);
  const templates = Array.from({ length: k.templates }, () => ({
    zone: k.sameZone ? commonZone : r.pick(ZONES),
    days: randomDays(r, k.overlappingWindows && r.chance(0.5), k.aligned),
    overrides: r.chance(0.4)
      ? Array.from({ length: r.int(1, 3) }, () => ({
          date: new Date(fromMs + r.int(0, k.days) * DAY).toISOString().slice(0, 10),
          slots: r.chance(0.3) ? [] : randomWindows(r, false, k.aligned),
        }))
      : [],
  }));
  type Rules = Omit<ProviderService, 'id' | 'organizationId' | 'providerId' | 'title' | 'slug'>;
  const ruleSets: Rules[] = k.aligned
    ? [{ duration: 60, minimumNoticeMinutes: r.pick([0, 60, 1440]) }]
    : Array.from(
        { length: r.int(1, 3) },
        (): Rules => ({
          duration: r.pick([15, 30, 45, 50, 60, 90]),
          slotIntervalMinutes: r.chance(0.5) ? undefined : r.pick([10, 15, 20, 30, 45, 60]),
          minimumNoticeMinutes: r.chance(0.3) ? undefined : r.pick([0, 60, 240, 1440]),
          bufferBeforeMinutes: r.chance(0.5) ? undefined : r.pick([0, 5, 15]),
          bufferAfterMinutes: r.chance(0.5) ? undefined : r.pick([0, 10, 15]),
        }),
      );

  const providers: Provider[] = [];
  const servicesOfSlug = new Map<string, ProviderService>();
  const schedulesByProvider = new Map<string, CalendarConnection[]>();
  const busyByProvider = new Map<string, Interval[]>();
  const feedByProvider = new Map<string, FeedState>();
  const workloadByProvider = new Map<string, number>();
  const continuityProviderIds = new Set<string>();
  const sharedSchedules = new Map<number, CalendarConnection>();
  const sameWorkload = r.pick([0, 0, 3]);
  for (let i = 0; i < k.providers; i++) {
    // Ids out of position order, so id tie-breaks and screening order differ.
    const id = `prv_${String(r.int(0, 9999)).padStart(4, '0')}_${i}`;
    providers.push({
      id,
      organizationId: 'org_1',
      externalId: `e${i}`,
      displayName: `P ${i}`,
      status: k.constrained && r.chance(0.05) ? 'inactive' : 'active',
      searchable: true,
      professionCode: 'psychologist',
      specialtyCodes: r.some(SPECIALTIES, 2),
      languageCodes: r.some(LANGS, 2),
      modalityCodes: ['virtual'],
      serviceRegionCodes: r.some(REGIONS, 2),
      insurancePlanCodes: r.some(INSURERS, 2),
      ageGroupCodes: ['adult'],
      licenseRecords: Array.from({ length: r.int(0, 2) }, () => randomLicense(r, now.getTime())),
      acceptsNewClients: r.chance(0.1) ? undefined : !r.chance(0.1),
      timezone: r.chance(0.3) ? undefined : r.pick(ZONES),
      location: r.pick(LOCATIONS),
      profileVersion: 1,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    if (r.chance(0.92)) {
      servicesOfSlug.set(id, {
        id: `svc_${i}`,
        organizationId: 'org_1',
        providerId: id,
        title: 'Intake',
        slug: 'intake',
        ...r.pick(ruleSets),
      });
    }
    if (r.chance(0.93)) {
      const t = r.int(0, templates.length - 1);
      const template = templates[t]!;
      // Providers with the same hours: sometimes one shared object, sometimes equal copies, sometimes a schedule of their own.
      let schedule: CalendarConnection;
      const own = r.chance(0.15);
      const external = k.feeds && r.chance(0.4);
      if (!own && !external && sharedSchedules.has(t) && r.chance(0.5)) schedule = sharedSchedules.get(t)!;
      else {
        schedule = {
          id: `cal_${i}`,
          organizationId: 'org_1',
          providerId: id,
          timezone: own ? r.pick(ZONES) : template.zone,
          days: own ? randomDays(r, k.overlappingWindows && r.chance(0.3), k.aligned) : template.days,
          overrides: own ? [] : template.overrides,
          ...(external ? { externalCalendar: { type: 'ics' as const, url: `https://calendar.example/${i}.ics` } } : {}),
          status: 'active',
        };
        if (!own && !external) sharedSchedules.set(t, schedule);
      }
      schedulesByProvider.set(id, r.chance(0.1) ? [schedule, { ...schedule, id: `cal_b${i}`, days: {} }] : [schedule]);
      if (external && !r.chance(0.15)) {
        const state = r.pick(['ok', 'ok', 'unverifiable', 'stale', 'calendar_disconnected'] as const);
        feedByProvider.set(
          id,
          state === 'ok'
            ? { state, busy: randomBusy(r, k.busyDensity, fromMs, toMs) }
            : { state, reason: 'fetch failed' },
        );
      }
    }
    const busy = randomBusy(r, k.busyDensity, fromMs, toMs);
    if (busy.length > 0 || r.chance(0.2)) busyByProvider.set(id, busy);
    if (k.equalWorkloads) {
      if (r.chance(0.8)) workloadByProvider.set(id, sameWorkload);
    } else if (r.chance(0.8)) {
      workloadByProvider.set(id, r.chance(0.05) ? r.pick([Number.NaN, -2, Infinity]) : r.int(0, 6));
    }
    if (r.chance(0.15)) continuityProviderIds.add(id);
  }

  const index = buildEligibilityIndex(providers);
  const offering = providerSetOf(
    index,
    providers.flatMap((p, i) => (servicesOfSlug.has(p.id) ? [i] : [])),
  );
  const constraints: EligibilityRequest = k.constrained
    ? {
        serviceSlug: 'intake',
        ...(r.chance(0.5) ? { languageCodes: r.some(LANGS, 2) } : {}),
        ...(r.chance(0.4) ? { insurancePlanCodes: r.some(INSURERS, 2) } : {}),
        ...(r.chance(0.3) ? { licenseRegionCodes: r.some(REGIONS, 2) } : {}),
        ...(r.chance(0.3) ? { acceptsNewClients: true } : {}),
      }
    : { serviceSlug: 'intake' };
  const policy = k.defaultPolicy
    ? {
        id: 'default',
        version: 1,
        weights: {
          preferredLanguage: 30,
          preferredDayPart: 15,
          earliestAvailable: 25,
          providerContinuity: 40,
          workloadBalance: 10,
          preferredLocation: 15,
        },
        tieBreakers: ['earliest_start', 'lowest_workload', 'provider_id'] as TieBreaker[],
      }
    : randomPolicy(r);
  const base: ResolutionInput = {
    index,
    offering,
    servicesOfSlug,
    schedulesByProvider,
    constraints,
    preferences: k.withPreferences ? randomPreferences(r) : {},
    window: { from, to },
    maxOptionsPerProvider: k.maxOptionsPerProvider,
    policy,
    now,
    busyByProvider,
    feedByProvider,
    workloadByProvider,
    continuityProviderIds,
    allowUnverifiable: k.allowUnverifiable,
  };
  // Another request minutes (or days) earlier or later: the notice cut-off moves across some slots, or between two.
  const later = new Date(
    now.getTime() +
      (r.chance(0.5) ? 1 : -1) * (r.chance(0.7) ? r.int(0, 40) * MINUTE + r.int(0, 59_999) : r.int(1, 3) * DAY),
  );
  const variants: ResolutionInput[] = [
    base,
    // The API takes whole numbers 1..10; computeResolution clamps anything, fractions included, the same way as before.
    {
      ...base,
      preferences: randomPreferences(r),
      maxOptionsPerProvider: r.chance(0.1) ? r.pick([0, 2.5, 12]) : r.int(1, 10),
      policy: k.defaultPolicy ? policy : randomPolicy(r),
    },
    { ...base, preferences: r.chance(0.5) ? base.preferences : randomPreferences(r), now: later },
  ];
  return variants.map((v) => (k.passScreened ? { ...v, screened: screenRequest(v) } : v));
}
