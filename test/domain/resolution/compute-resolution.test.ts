import test from 'ava';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { Interval } from '../../../src/domain/availability/busy-intervals.js';
import { addDays } from '../../../src/domain/availability/local-date.js';
import { buildEligibilityIndex, providerSetOf } from '../../../src/domain/eligibility/eligibility-index.js';
import { positions } from '../../../src/domain/eligibility/provider-set.js';
import { reviewReasonOf, type ReviewReason } from '../../../src/domain/eligibility/review-reason.js';
import type { CalendarConnection, Provider, ProviderService } from '../../../src/domain/provider.js';
import { DEFAULT_POLICY, type RankingPolicy } from '../../../src/domain/ranking/ranking-policy.js';
import type { RankingPreferences } from '../../../src/domain/ranking/rank-options.js';
import {
  computeResolution,
  type ResolutionInput,
  type ResolutionOutcome,
} from '../../../src/domain/resolution/compute-resolution.js';
import { computeResolution as referenceComputeResolution } from './reference-compute-resolution.js';
import { buildScenario, scenarioKnobs } from './resolution-scenario.js';

// Maps compare as sets in deep equality; their order is part of the outcome too (the candidates record follows it).
// Manual review compares as the rows it records: each unknown provider with its reasons, in provider order; the
// reference takes them from a verdict per provider, the resolution from the screening's groups.
function comparable(
  outcome: Omit<ResolutionOutcome, 'reviewGroups'>,
  review: { providerId: string; reasons: readonly ReviewReason[] }[],
) {
  return { ...outcome, availability: [...outcome.availability], review };
}

function outcomesOf(input: ResolutionInput) {
  const { reviewGroups, ...topK } = computeResolution(input);
  const { unknownEligibility, ...reference } = referenceComputeResolution(input);
  const providers = input.index.providers;
  const grouped = reviewGroups
    .flatMap((g) => positions(g.providers).map((i) => ({ i, reasons: g.reasons })))
    .sort((a, b) => a.i - b.i)
    .map(({ i, reasons }) => ({ providerId: providers[i]!.id, reasons }));
  const verdicts = unknownEligibility.map((e) => ({
    providerId: e.providerId,
    reasons: e.exclusions.filter((x) => x.status === 'unknown').map((x) => reviewReasonOf(x)),
  }));
  return { topK: comparable(topK, grouped), reference: comparable(reference, verdicts) };
}

test('top-k resolution returns exactly the outcome of ranking every provider, on random graphs, policies and busy time', (t) => {
  const result = fc.check(
    fc.property(scenarioKnobs, (knobs) =>
      buildScenario(knobs).every((input) => {
        const { topK, reference } = outcomesOf(input);
        return isDeepStrictEqual(topK, reference);
      }),
    ),
    { numRuns: 300 },
  );
  if (result.failed && result.counterexample) {
    for (const [i, input] of buildScenario(result.counterexample[0]).entries()) {
      const { topK, reference } = outcomesOf(input);
      t.deepEqual(topK, reference, `request ${i} of ${fc.defaultReportMessage(result) ?? 'the failing scenario'}`);
    }
  }
  t.false(result.failed, fc.defaultReportMessage(result) ?? '');
});

test('the random scenarios reach the cases that matter: options, zero results, pruned providers and ties', (t) => {
  // A property that holds vacuously proves nothing: count what the runs above exercise (same generator).
  let withOptions = 0;
  let zeroResults = 0;
  let manyOffered = 0;
  let tiedTenth = 0;
  let licenseCut = 0;
  let expiringSoon = 0;
  fc.assert(
    fc.property(scenarioKnobs, (knobs) => {
      const outcome = computeResolution(buildScenario(knobs)[0]!);
      if (outcome.options.length > 0) withOptions++;
      else zeroResults++;
      const offered = outcome.summary.eligibleProviders - outcome.noAvailabilityProviderIds.length;
      if (offered > 12) manyOffered++;
      const [ninth, tenth] = [outcome.options[8], outcome.options[9]];
      if (ninth && tenth && ninth.score === tenth.score && ninth.availabilityDensity === tenth.availabilityDensity)
        tiedTenth++;
      // License cases, over every request of the scenario (each asks for licenses less than half the time).
      for (const input of buildScenario(knobs)) {
        const each = computeResolution(input);
        if (each.options.some((o) => o.warnings.some((w) => w.code === 'LICENSE_EXPIRING_SOON'))) expiringSoon++;
        const lastDay = addDays(input.window.to, -1);
        const endsInside = (o: (typeof each.options)[number]) => {
          const through = o.eligibility.licenseValidThrough?.expiresAt;
          return through !== undefined && through < lastDay;
        };
        if (each.options.some(endsInside)) licenseCut++;
      }
    }),
    // A fixed seed: the counts below are of one known sample (random ones put the rarer cases near their floors).
    { numRuns: 400, seed: 424242 },
  );
  t.true(withOptions > 200, `with options: ${withOptions}`);
  t.true(zeroResults > 5, `zero results: ${zeroResults}`);
  t.true(manyOffered > 50, `more than 12 offerable providers: ${manyOffered}`);
  t.true(tiedTenth > 20, `9th and 10th tied on score and density: ${tiedTenth}`);
  t.true(licenseCut > 8, `options of a provider whose license ends inside the window: ${licenseCut}`);
  t.true(expiringSoon > 5, `options warned LICENSE_EXPIRING_SOON: ${expiringSoon}`);
});

// ---- focused cases -------------------------------------------------------------------------------------------

const NOW = new Date('2026-03-02T15:00:00Z');
const WINDOW = { from: '2026-03-03', to: '2026-03-10' };

interface FocusedProvider {
  id: string;
  zone?: string;
  days?: CalendarConnection['days'];
  busy?: Interval[];
  workload?: number;
  languageCodes?: string[];
  /** The last valid date of a verified US-NY license (then the request asks for a US-NY license). */
  licenseThrough?: string;
}

const weekdays = (start: string, end: string): CalendarConnection['days'] => {
  const day = { enabled: true, slots: [{ start, end }] };
  return { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day };
};

/** A graph where every provider is eligible and offers a 60-minute session. */
function focusedInput(
  list: FocusedProvider[],
  over: { preferences?: RankingPreferences; policy?: RankingPolicy; maxOptionsPerProvider?: number } = {},
): ResolutionInput {
  const providers: Provider[] = list.map((p, i) => ({
    id: p.id,
    organizationId: 'org_1',
    externalId: `e${i}`,
    displayName: p.id,
    status: 'active',
    searchable: true,
    specialtyCodes: [],
    languageCodes: p.languageCodes ?? ['en'],
    modalityCodes: ['virtual'],
    serviceRegionCodes: ['US-NY'],
    insurancePlanCodes: ['uhc'],
    ageGroupCodes: ['adult'],
    licenseRecords:
      p.licenseThrough === undefined
        ? []
        : [
            {
              licenseTypeCode: 'psy',
              regionCode: 'US-NY',
              status: 'active',
              expiresAt: p.licenseThrough,
              verifiedAt: '2026-01-01T00:00:00Z',
            },
          ],
    acceptsNewClients: true,
    profileVersion: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  }));
  const servicesOfSlug = new Map<string, ProviderService>(
    list.map((p, i) => [
      p.id,
      { id: `svc_${i}`, organizationId: 'org_1', providerId: p.id, title: 'Intake', slug: 'intake', duration: 60 },
    ]),
  );
  const schedulesByProvider = new Map<string, CalendarConnection[]>(
    list.map((p, i) => [
      p.id,
      [
        {
          id: `cal_${i}`,
          organizationId: 'org_1',
          providerId: p.id,
          timezone: p.zone ?? 'America/New_York',
          days: p.days ?? weekdays('09:00', '17:00'),
          overrides: [],
          status: 'active',
        },
      ],
    ]),
  );
  const index = buildEligibilityIndex(providers);
  return {
    index,
    offering: providerSetOf(
      index,
      providers.map((_, i) => i),
    ),
    servicesOfSlug,
    schedulesByProvider,
    constraints: {
      serviceSlug: 'intake',
      languageCodes: ['en'],
      ...(list.some((p) => p.licenseThrough !== undefined) ? { licenseRegionCodes: ['US-NY'] } : {}),
    },
    preferences: over.preferences ?? {},
    window: WINDOW,
    maxOptionsPerProvider: over.maxOptionsPerProvider ?? 3,
    policy: over.policy ?? DEFAULT_POLICY,
    now: NOW,
    busyByProvider: new Map(list.filter((p) => p.busy).map((p) => [p.id, p.busy!])),
    feedByProvider: new Map(),
    workloadByProvider: new Map(list.map((p) => [p.id, p.workload ?? 0])),
    continuityProviderIds: new Set(),
    allowUnverifiable: false,
  };
}

const ids = (n: number, prefix = 'prv_') =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);

test('all providers tied on score and density: the ten options are the earliest slots, ties broken by provider id', (t) => {
  const input = focusedInput(
    ids(200)
      .reverse()
      .map((id) => ({ id })),
  );
  const { topK, reference } = outcomesOf(input);
  t.deepEqual(topK, reference);
  // Everyone opens 09:00 New York on Tuesday 3 March: each first slot ties, so the ten smallest ids win.
  t.deepEqual(
    topK.options.map((o) => o.providerId),
    ids(10),
  );
  t.true(topK.options.every((o) => o.slot.start === Date.parse('2026-03-03T14:00:00Z') && o.isEarliestOpening));
  t.is(topK.summary.providersWithVerifiedAvailability, 200);
  t.is(topK.summary.evaluatedSlots, 200 * 5 * 8);
});

test('density breaks a score tie before the start: the provider with fewer slots checked ranks first even if it opens later', (t) => {
  // prv_short works 13:00-15:00 (2 slots a day, density 3/10); the others 09:00-17:00 (3/40) and open four hours earlier.
  const input = focusedInput([...ids(30).map((id) => ({ id })), { id: 'prv_short', days: weekdays('13:00', '15:00') }]);
  const { topK, reference } = outcomesOf(input);
  t.deepEqual(topK, reference);
  t.deepEqual(
    topK.options.slice(0, 3).map((o) => [o.providerId, o.availabilityDensity]),
    [
      ['prv_short', 0.3],
      ['prv_short', 0.3],
      ['prv_short', 0.3],
    ],
  );
  t.is(topK.options[3]?.providerId, 'prv_000');
});

test('the 10th option ties with a provider never scanned except for the provider id, and the smaller id keeps the place', (t) => {
  // Eleven identical providers, one slot each: options 1-10 tie on score, density and start; prv_010 differs by id only.
  const input = focusedInput(
    ids(11).map((id) => ({ id })),
    { maxOptionsPerProvider: 1 },
  );
  const { topK, reference } = outcomesOf(input);
  t.deepEqual(topK, reference);
  t.deepEqual(
    topK.options.map((o) => o.providerId),
    ids(10),
  );
  // With the id tie-breaker first, the order is the same; without any tie-breaker the fixed start/id/end order decides.
  for (const tieBreakers of [['provider_id'], [], ['lowest_workload', 'earliest_start']] as const) {
    const again = outcomesOf(
      focusedInput(
        ids(11).map((id) => ({ id })),
        { maxOptionsPerProvider: 1, policy: { ...DEFAULT_POLICY, tieBreakers } },
      ),
    );
    t.deepEqual(again.topK, again.reference);
    t.deepEqual(
      again.topK.options.map((o) => o.providerId),
      ids(10),
    );
  }
});

test('a provider whose first slot starts exactly with the 10th option, with a smaller id, still takes its place', (t) => {
  // Five providers open at 09:00 and give two slots each; prv_a opens at 10:00 with as many slots checked, so its
  // first slot ties the 10:00 slots of the others on everything but the id.
  const list: FocusedProvider[] = [
    ...ids(5, 'prv_b').map((id) => ({ id })),
    { id: 'prv_a', days: weekdays('10:00', '18:00') },
  ];
  const { topK, reference } = outcomesOf(focusedInput(list, { maxOptionsPerProvider: 2 }));
  t.deepEqual(topK, reference);
  t.deepEqual(
    topK.options.map((o) => o.providerId),
    [...ids(5, 'prv_b'), 'prv_a', ...ids(4, 'prv_b')],
  );
});

test('a provider whose first preferred-day-part slot starts exactly with the 10th option, with a smaller id, takes its place', (t) => {
  // Evening wanted, two options each. Five providers work 12:00-20:00 (evening from 17:00); prv_a works 09:00-13:00 and
  // 18:00-22:00: as many slots checked, first free at 09:00, first evening slot at 18:00, tying the 10th option but for the id.
  const split: CalendarConnection['days'] = Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((d) => [
      d,
      {
        enabled: true,
        slots: [
          { start: '09:00', end: '13:00' },
          { start: '18:00', end: '22:00' },
        ],
      },
    ]),
  );
  const list: FocusedProvider[] = [
    ...ids(5, 'prv_b').map((id) => ({ id, days: weekdays('12:00', '20:00') })),
    { id: 'prv_a', days: split },
  ];
  const { topK, reference } = outcomesOf(
    focusedInput(list, { maxOptionsPerProvider: 2, preferences: { dayParts: ['evening'] } }),
  );
  t.deepEqual(topK, reference);
  t.deepEqual(
    topK.options.map((o) => o.providerId),
    [...ids(5, 'prv_b'), 'prv_a', ...ids(4, 'prv_b')],
  );
  t.is(topK.options[5]?.slot.start, Date.parse('2026-03-03T23:00:00Z'));
});

test('a busy first slot moves a provider behind those free at opening time, as ranking everyone would', (t) => {
  const opening = Date.parse('2026-03-03T14:00:00Z');
  const input = focusedInput(
    ids(12).map((id, i) => ({ id, busy: i < 6 ? [{ start: opening, end: opening + 3_600_000 }] : undefined })),
    { maxOptionsPerProvider: 1 },
  );
  const { topK, reference } = outcomesOf(input);
  t.deepEqual(topK, reference);
  // prv_006..prv_011 are free at 09:00; prv_000..prv_003 follow at 10:00 (by id), prv_004 and prv_005 do not fit.
  t.deepEqual(
    topK.options.map((o) => o.providerId),
    [...ids(12).slice(6), ...ids(4)],
  );
});

test('an evening preference finds the few providers open in the evening among many denser ones that are not', (t) => {
  // 60 providers work mornings only (fewer slots checked: higher density bound); 5 work 12:00-20:00.
  const list: FocusedProvider[] = [
    ...ids(60, 'prv_m').map((id) => ({ id, days: weekdays('08:00', '12:00') })),
    ...ids(5, 'prv_e').map((id) => ({ id, days: weekdays('12:00', '20:00') })),
  ];
  const { topK, reference } = outcomesOf(focusedInput(list, { preferences: { dayParts: ['evening'] } }));
  t.deepEqual(topK, reference);
  t.deepEqual(
    topK.options.slice(0, 5).map((o) => o.providerId),
    ids(5, 'prv_e'),
  );
  t.true(topK.options.slice(0, 5).every((o) => o.rankingFactors.some((f) => f.code === 'PREFERRED_DAY_PART')));
});

test('overlapping windows of a schedule stored without validation rank as ranking everyone would', (t) => {
  // Scanned window by window, these slots are not in start order: with 08:30-09:10 busy, the first free slot met is
  // 10:00 (second window) while the third window's 09:15 is free, earlier, and among the ten kept.
  const overlapping: CalendarConnection['days'] = {
    tuesday: {
      enabled: true,
      slots: [
        { start: '09:00', end: '17:00' },
        { start: '08:30', end: '10:00' },
        { start: '09:15', end: '11:00' },
      ],
    },
  };
  const busy = [{ start: Date.parse('2026-03-03T13:30:00Z'), end: Date.parse('2026-03-03T14:10:00Z') }];
  const list = [
    ...ids(8).map((id) => ({ id, days: overlapping, busy })),
    ...ids(8, 'prv_x').map((id) => ({ id, days: weekdays('11:00', '17:00') })),
  ];
  for (const preferences of [{}, { dayParts: ['morning' as const] }, { earliestAvailable: true }]) {
    const { topK, reference } = outcomesOf(focusedInput(list, { preferences, maxOptionsPerProvider: 10 }));
    t.deepEqual(topK, reference);
  }
  const { topK } = outcomesOf(
    focusedInput(list, { preferences: { earliestAvailable: true }, maxOptionsPerProvider: 10 }),
  );
  t.is(topK.options[0]?.slot.start, Date.parse('2026-03-03T14:15:00Z'));
  t.true(topK.options[0]?.isEarliestOpening);
});

test('a policy weight that is not a finite number ranks every provider, in screening order, as before', (t) => {
  const policy: RankingPolicy = {
    ...DEFAULT_POLICY,
    weights: { ...DEFAULT_POLICY.weights, workloadBalance: Number.NaN },
  };
  const list = ids(15).map((id, i) => ({ id, workload: i % 3 }));
  const { topK, reference } = outcomesOf(focusedInput(list, { policy, preferences: { earliestAvailable: true } }));
  t.deepEqual(topK, reference);
  t.is(topK.options.length, 10);
});

test('a license ending inside the window keeps the slots up to its date; one ending before it excludes LICENSE_EXPIRED (CONTRACT part 8)', (t) => {
  const hour = (day: string) => ({ enabled: true, slots: [{ start: '09:00', end: '10:00' }] });
  const input = focusedInput(
    [
      // Tuesday 03-03 to Monday 03-09; the license ends Thursday 03-05.
      { id: 'prv_cut', licenseThrough: '2026-03-05' },
      // Busy through its license's end, free after it: left with no slot by the license.
      {
        id: 'prv_gone',
        licenseThrough: '2026-03-04',
        busy: [{ start: Date.parse('2026-03-03T05:00:00Z'), end: Date.parse('2026-03-05T05:00:00Z') }],
      },
      // Valid today (03-02), expired before the first requested date.
      { id: 'prv_before', licenseThrough: '2026-03-02' },
      // Valid through 04-05: only slots from 03-06 on are within 30 days of it.
      { id: 'prv_soon', licenseThrough: '2026-04-05', days: { tuesday: hour('tue'), friday: hour('fri') } },
    ],
    { maxOptionsPerProvider: 10 },
  );
  const outcome = computeResolution(input);
  const { topK, reference } = outcomesOf(input);
  t.deepEqual(topK, reference);

  const local = (ms: number) => new Date(ms - 5 * 3_600_000).toISOString().slice(0, 10);
  const cut = outcome.options.filter((o) => o.providerId === 'prv_cut');
  t.true(cut.length > 0);
  t.true(cut.every((o) => local(o.slot.start) <= '2026-03-05'));
  t.true(cut.every((o) => o.warnings.some((w) => w.code === 'LICENSE_EXPIRING_SOON')));
  t.false(outcome.options.some((o) => o.providerId === 'prv_gone' || o.providerId === 'prv_before'));
  t.deepEqual(outcome.licenseExpired, [{ providerId: 'prv_gone', expiresAt: '2026-03-04' }]);
  t.is(outcome.exclusionSummary.LICENSE_EXPIRED, 2);
  t.is(outcome.summary.eligibleProviders, 2);
  t.deepEqual(Object.keys(outcome.exclusionSummary), ['LICENSE_EXPIRED']);

  const soon = outcome.options.filter((o) => o.providerId === 'prv_soon');
  t.deepEqual(
    soon.map((o) => [local(o.slot.start), o.warnings.map((w) => w.code)]),
    [
      ['2026-03-03', []],
      ['2026-03-06', ['LICENSE_EXPIRING_SOON']],
    ],
  );
});
