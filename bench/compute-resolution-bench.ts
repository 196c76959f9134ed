/**
 * CPU cost of computeResolution alone, in process (`npx tsx bench/compute-resolution-bench.ts`): a synthetic
 * 10,000-provider graph (the bench's provider mix, weekly schedules, one 50-minute service each, a few bookings),
 * constraint mixes leaving ~1%, ~3%, ~10% and ~30% of providers eligible, each with four preference variants; prints
 * mean µs per resolution for the pre-top-k reference and for the current implementation, and µs per eligible
 * provider. CPU time of this process is measured (process.cpuUsage), so other load on the machine matters less than
 * for wall time, though not at all is too much to hope for. Not a timed test. BENCH_ROUNDS and BENCH_BATCH_MS set the
 * batches.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Interval } from '../src/domain/availability/busy-intervals.js';
import type { EligibilityRequest } from '../src/domain/eligibility.js';
import { buildEligibilityIndex, providerSetOf } from '../src/domain/eligibility/eligibility-index.js';
import type { CalendarConnection, Provider, ProviderService } from '../src/domain/provider.js';
import type { RankingPreferences } from '../src/domain/ranking/rank-options.js';
import { DEFAULT_POLICY } from '../src/domain/ranking/ranking-policy.js';
import {
  computeResolution,
  screenRequest,
  type FeedState,
  type ResolutionInput,
} from '../src/domain/resolution/compute-resolution.js';
import { computeResolution as referenceComputeResolution } from '../test/domain/resolution/reference-compute-resolution.js';
import { generateProviders } from './provider-mix.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { addDays } from './bench-dates.js';

const PROVIDERS = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCH_CPU_MS = Number(process.env.BENCH_BATCH_MS ?? 150);
// Monday 2 March 2026, 15:00 UTC; the window starts the next day (as the service bench's does) and spans the US
// spring-forward change of 8 March.
const NOW = new Date('2026-03-02T15:00:00Z');
const WINDOW = { from: '2026-03-03', to: '2026-03-17' };
const MINUTE_MS = 60_000;

/**
 * The synthetic organization: the same shapes org-graph.ts builds from the database. With `distinctHours`, every
 * schedule also gets a day off of its own far outside the window: the same slots, but no two schedules alike, so
 * nothing remembered for one schedule serves another (the worst case for the per-schedule memos).
 */
function buildGraph(distinctHours = false) {
  const rnd = createSeededRandom(20_260_301);
  const generated = generateProviders(rnd, PROVIDERS, NOW.getTime());
  const providers: Provider[] = [];
  const servicesOfSlug = new Map<string, ProviderService>();
  const schedulesByProvider = new Map<string, CalendarConnection[]>();
  const busyByProvider = new Map<string, Interval[]>();
  const workloadByProvider = new Map<string, number>();
  generated.forEach((g, i) => {
    const row = g.row as Record<string, any>;
    const id = `prv_${String(i).padStart(5, '0')}`;
    providers.push({
      id,
      organizationId: 'org_bench',
      externalId: g.externalId,
      displayName: row.displayName,
      email: row.email,
      status: 'active',
      searchable: true,
      professionCode: row.professionCode,
      specialtyCodes: row.specialtyCodes,
      languageCodes: row.languageCodes,
      modalityCodes: row.modalityCodes,
      serviceRegionCodes: row.serviceRegionCodes,
      insurancePlanCodes: row.insurancePlanCodes ?? [],
      ageGroupCodes: row.ageGroupCodes,
      licenseRecords: row.licenseRecords,
      acceptsNewClients: row.acceptsNewClients,
      timezone: row.timezone,
      location: row.location,
      panelCapacity: row.panelCapacity,
      panelCurrentCount: row.panelCurrentCount,
      profileVersion: 1,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    servicesOfSlug.set(id, {
      id: `svc_${i}`,
      organizationId: 'org_bench',
      providerId: id,
      title: 'Intake Session',
      slug: 'intake-session',
      duration: 50,
      modality: g.serviceModality,
    });
    schedulesByProvider.set(id, [
      {
        id: `cal_${i}`,
        organizationId: 'org_bench',
        providerId: id,
        title: 'Office hours',
        timezone: g.timezone,
        days: g.days as CalendarConnection['days'],
        overrides: distinctHours ? [{ date: addDays('2030-01-01', i), slots: [] }] : [],
        status: 'active',
      },
    ]);
    // About one provider in ten has a few bookings in the fortnight (on the hour, so some hit slots, some do not).
    if (rnd.chance(0.1)) {
      const busy: Interval[] = [];
      for (let b = rnd.int(1, 4); b > 0; b--) {
        const start =
          Date.parse(`${WINDOW.from}T14:00:00Z`) + rnd.int(0, 13) * 86_400_000 + rnd.int(0, 8) * 60 * MINUTE_MS;
        busy.push({ start, end: start + 50 * MINUTE_MS });
      }
      busy.sort((a, b) => a.start - b.start);
      busyByProvider.set(id, busy);
      workloadByProvider.set(id, busy.length);
    }
  });
  const index = buildEligibilityIndex(providers);
  const offering = providerSetOf(
    index,
    providers.map((_, i) => i),
  );
  return { providers, index, offering, servicesOfSlug, schedulesByProvider, busyByProvider, workloadByProvider };
}

/** Constraint mixes and the share of providers each leaves eligible (printed, measured on the graph). */
const MIXES: { name: string; constraints: EligibilityRequest }[] = [
  {
    name: '~1%',
    constraints: {
      serviceSlug: 'intake-session',
      languageCodes: ['es'],
      insurancePlanCodes: ['humana'],
      serviceRegionCodes: ['US-TX'],
      modalityCodes: ['virtual'],
    },
  },
  {
    name: '~3%',
    constraints: {
      serviceSlug: 'intake-session',
      languageCodes: ['en'],
      insurancePlanCodes: ['aetna'],
      serviceRegionCodes: ['US-FL'],
      modalityCodes: ['in_person'],
    },
  },
  {
    name: '~10%',
    constraints: {
      serviceSlug: 'intake-session',
      languageCodes: ['en'],
      insurancePlanCodes: ['uhc'],
      serviceRegionCodes: ['US-CA', 'US-NY'],
      modalityCodes: ['virtual'],
    },
  },
  {
    name: '~30%',
    constraints: {
      serviceSlug: 'intake-session',
      languageCodes: ['en'],
      insurancePlanCodes: ['aetna'],
      modalityCodes: ['virtual'],
    },
  },
];

/** Preference variants: none, a day part that most schedules open with, one they mostly lack, earliest first. */
const PREFERENCES: { name: string; preferences: RankingPreferences }[] = [
  { name: 'none', preferences: {} },
  { name: 'morning', preferences: { dayParts: ['morning'] } },
  { name: 'evening', preferences: { dayParts: ['evening'] } },
  { name: 'earliest', preferences: { earliestAvailable: true } },
];

let graph = buildGraph();
const noFeeds = new Map<string, FeedState>();
const noContinuity = new Set<string>();

function inputOf(
  constraints: EligibilityRequest,
  preferences: RankingPreferences,
  window = WINDOW,
  now = NOW,
): ResolutionInput {
  const base = {
    index: graph.index,
    offering: graph.offering,
    servicesOfSlug: graph.servicesOfSlug,
    schedulesByProvider: graph.schedulesByProvider,
    constraints,
    preferences,
    window,
    maxOptionsPerProvider: 3,
    policy: DEFAULT_POLICY,
    now,
    busyByProvider: graph.busyByProvider,
    feedByProvider: noFeeds,
    workloadByProvider: graph.workloadByProvider,
    continuityProviderIds: noContinuity,
    allowUnverifiable: false,
  };
  // As the service does: screened first (to read busy time of the matched only), then computed.
  return { ...base, screened: screenRequest(base) };
}

/** Process CPU time (user + system) in µs: other processes on the machine do not count, unlike wall time. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** CPU µs per call of `run`, over calls adding up to at least BATCH_CPU_MS of CPU. */
function batch(input: ResolutionInput, run: (input: ResolutionInput) => unknown): number {
  const t0 = cpuMicros();
  let calls = 0;
  let spent = 0;
  while (spent < BATCH_CPU_MS * 1000) {
    for (let i = 0; i < 5; i++) run(input);
    calls += 5;
    spent = cpuMicros() - t0;
  }
  return spent / calls;
}

/** Median CPU µs per call of each implementation over ROUNDS alternating batches, after a warm-up. */
function measure(input: ResolutionInput): { reference: number; topK: number } {
  batch(input, referenceComputeResolution);
  batch(input, computeResolution);
  const reference: number[] = [];
  const topK: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    reference.push(batch(input, referenceComputeResolution));
    topK.push(batch(input, computeResolution));
  }
  return { reference: median(reference), topK: median(topK) };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

console.log(
  `computeResolution CPU (process CPU time, median of ${ROUNDS} alternating batches of >= ${BATCH_CPU_MS} ms), ${PROVIDERS} providers, 14-day window, maxOptionsPerProvider 3, node ${process.version}`,
);
console.log('mix   prefs     eligible  reference µs  top-k µs  ratio  ref µs/eligible  top-k µs/eligible');
for (const mix of MIXES) {
  for (const pref of PREFERENCES) {
    const input = inputOf(mix.constraints, pref.preferences);
    const eligible = input.screened!.screen.matched.length;
    // Equal answers first: a benchmark of a wrong answer is worthless.
    if (!isDeepStrictEqual(computeResolution(input), referenceComputeResolution(input)))
      throw new Error(`outcomes differ for ${mix.name} ${pref.name}`);
    const { reference, topK } = measure(input);
    console.log(
      `${mix.name.padEnd(5)} ${pref.name.padEnd(9)} ${String(eligible).padStart(8)}  ${reference.toFixed(0).padStart(12)}  ${topK.toFixed(0).padStart(8)}  ${(reference / topK).toFixed(1).padStart(5)}` +
        `  ${(reference / eligible).toFixed(2).padStart(15)}  ${(topK / eligible).toFixed(2).padStart(17)}`,
    );
  }
}

// Cold: the first request of a window on a graph whose schedules are all different, so every count and day-part
// profile is computed for that request (later requests of the same window and hours reuse them, as measured above).
const COLD_WINDOWS = 8;
graph = buildGraph(true);
console.log(
  `\ncold memos: ${PROVIDERS} providers with no two schedules alike, the first request of each of ${COLD_WINDOWS} windows (mean CPU µs of one call)`,
);
console.log('mix   prefs     eligible  reference µs  top-k µs  ratio');
for (const mix of [MIXES[2]!, MIXES[3]!]) {
  for (const pref of PREFERENCES) {
    let reference = 0;
    let topK = 0;
    let eligible = 0;
    for (let w = 0; w < COLD_WINDOWS; w++) {
      // A window starting one day later each time (and asked the day before): nothing remembered matches it yet.
      const from = addDays('2026-04-01', w + (PREFERENCES.indexOf(pref) + 4 * MIXES.indexOf(mix)) * COLD_WINDOWS);
      const input = inputOf(
        mix.constraints,
        pref.preferences,
        { from, to: addDays(from, 14) },
        new Date(`${addDays(from, -1)}T15:00:00Z`),
      );
      eligible = input.screened!.screen.matched.length;
      let t0 = cpuMicros();
      const fresh = computeResolution(input);
      topK += cpuMicros() - t0;
      t0 = cpuMicros();
      const expected = referenceComputeResolution(input);
      reference += cpuMicros() - t0;
      if (!isDeepStrictEqual(fresh, expected)) throw new Error(`outcomes differ for ${mix.name} ${pref.name} (cold)`);
    }
    console.log(
      `${mix.name.padEnd(5)} ${pref.name.padEnd(9)} ${String(eligible).padStart(8)}  ${(reference / COLD_WINDOWS).toFixed(0).padStart(12)}  ${(topK / COLD_WINDOWS).toFixed(0).padStart(8)}  ${(reference / topK).toFixed(1).padStart(5)}`,
    );
  }
}
