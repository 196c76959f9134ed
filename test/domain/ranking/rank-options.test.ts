import test from 'ava';
import fc from 'fast-check';
import { createRankingContext, workloadOf, type ScoredSlot } from '../../../src/domain/ranking/ranking-context.js';
import {
  rankOptions,
  type RankedOption,
  type RankingCandidate,
  type RankOptionsInput,
  type RankingSlot,
} from '../../../src/domain/ranking/rank-options.js';
import { DEFAULT_POLICY, type RankingPolicy, type TieBreaker } from '../../../src/domain/ranking/ranking-policy.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Tue 3 Mar 2026 00:00 UTC.
const T0 = Date.UTC(2026, 2, 3);
const WINDOW_END = T0 + 7 * DAY;

function slot(start: number, timezone = 'UTC'): RankingSlot {
  return { start, end: start + HOUR, timezone };
}

function candidate(
  id: string,
  over: Partial<RankingCandidate> & { languageCodes?: string[]; specialtyCodes?: string[]; location?: string } = {},
): RankingCandidate {
  return {
    provider: {
      id,
      displayName: `Provider ${id}`,
      languageCodes: over.languageCodes ?? ['en'],
      specialtyCodes: over.specialtyCodes ?? [],
      location: over.location,
    },
    slots: over.slots ?? [slot(T0 + 10 * HOUR)],
    workload: over.workload ?? 0,
    continuity: over.continuity ?? false,
    evaluatedSlotCount: over.evaluatedSlotCount,
  };
}

function rank(candidates: RankingCandidate[], over: Partial<RankOptionsInput> = {}): RankedOption[] {
  return rankOptions({ candidates, preferences: {}, policy: DEFAULT_POLICY, windowEnd: WINDOW_END, ...over });
}

const ids = (opts: RankedOption[]) => opts.map((o) => o.providerId);

// Each factor alone: "b" is later by id and by nothing else, so it only comes first when the factor lifts it.
const factorCases: {
  title: string;
  b: Partial<Parameters<typeof candidate>[1]>;
  a?: Partial<Parameters<typeof candidate>[1]>;
  preferences: RankOptionsInput['preferences'];
  code: string;
  points: number;
}[] = [
  {
    title: 'preferred language',
    b: { languageCodes: ['es', 'en'] },
    preferences: { languageCodes: ['ES'] },
    code: 'PREFERRED_LANGUAGE',
    points: 30,
  },
  { title: 'provider continuity', b: { continuity: true }, preferences: {}, code: 'PROVIDER_CONTINUITY', points: 40 },
  {
    title: 'preferred location',
    b: { location: 'Brooklyn, NY' },
    a: { location: 'Queens, NY' },
    preferences: { location: 'brooklyn' },
    code: 'PREFERRED_LOCATION',
    points: 15,
  },
  {
    title: 'preferred specialty',
    b: { specialtyCodes: ['anxiety'] },
    a: { specialtyCodes: ['grief'] },
    preferences: { specialtyCodes: ['anxiety'] },
    code: 'PREFERRED_SPECIALTY',
    points: 10,
  },
  {
    title: 'workload balance',
    b: { workload: 0 },
    a: { workload: 4 },
    preferences: {},
    code: 'WORKLOAD_BALANCE',
    points: 10,
  },
  {
    title: 'preferred day part',
    b: { slots: [slot(T0 + 18 * HOUR)] },
    a: { slots: [slot(T0 + 9 * HOUR)] },
    preferences: { dayParts: ['evening'] },
    code: 'PREFERRED_DAY_PART',
    points: 15,
  },
];

for (const c of factorCases) {
  test(`factor alone: ${c.title} puts the matching provider first`, (t) => {
    const a = candidate('a', c.a);
    const b = candidate('b', c.b);
    const without = rank([a, b]);
    const withFactor = rank([a, b], { preferences: c.preferences });
    const bOption = withFactor.find((o) => o.providerId === 'b');
    t.deepEqual(ids(withFactor), ['b', 'a']);
    t.true(
      bOption?.rankingFactors.some((f) => f.code === c.code && f.points === c.points),
      JSON.stringify(bOption?.rankingFactors),
    );
    t.false(withFactor.find((o) => o.providerId === 'a')?.rankingFactors.some((f) => f.code === c.code));
    // Preference-driven factors: without the preference the id order stands.
    if (Object.keys(c.preferences).length > 0 && c.code !== 'PREFERRED_DAY_PART') t.deepEqual(ids(without), ['a', 'b']);
  });
}

test('earliest available scales linearly from the earliest slot to the window end and is listed even at 0 points', (t) => {
  const a = candidate('a', { slots: [slot(T0 + 2 * DAY)] });
  const b = candidate('b', { slots: [slot(T0)] });
  const c = candidate('c', { slots: [slot(WINDOW_END)] });
  const opts = rank([a, b, c], { preferences: { earliestAvailable: true } });
  t.deepEqual(ids(opts), ['b', 'a', 'c']);
  const points = (id: string) =>
    opts.find((o) => o.providerId === id)?.rankingFactors.find((f) => f.code === 'EARLIEST_AVAILABLE')?.points;
  t.is(points('b'), 25);
  t.is(points('a'), Math.round(25 * (1 - 2 / 7) * 100) / 100);
  t.is(points('c'), 0);
  t.true(opts[0]?.isEarliestOpening);
  t.false(opts[1]?.isEarliestOpening);
  // Not requested: no EARLIEST_AVAILABLE entry at all.
  t.false(rank([a, b, c]).some((o) => o.rankingFactors.some((f) => f.code === 'EARLIEST_AVAILABLE')));
});

test('workload balance is weight * (1 - workload / max); equal workloads all get the full weight', (t) => {
  const opts = rank([
    candidate('a', { workload: 10 }),
    candidate('b', { workload: 5 }),
    candidate('c', { workload: 0 }),
  ]);
  const wb = (id: string) =>
    opts.find((o) => o.providerId === id)?.rankingFactors.find((f) => f.code === 'WORKLOAD_BALANCE')?.points ?? 0;
  t.deepEqual([wb('a'), wb('b'), wb('c')], [0, 5, 10]);
  const equal = rank([candidate('a', { workload: 3 }), candidate('b', { workload: 3 })]);
  t.deepEqual(
    equal.map((o) => o.score),
    [10, 10],
  );
});

test('score is the sum of the factor points and only factors with points are listed', (t) => {
  const opts = rank([candidate('a', { languageCodes: ['es'], continuity: true, location: 'Austin' })], {
    preferences: { languageCodes: ['es'], location: 'austin', dayParts: ['morning'] },
  });
  const o = opts[0] as RankedOption;
  t.deepEqual(
    o.rankingFactors.map((f) => f.code),
    ['PREFERRED_LANGUAGE', 'PREFERRED_DAY_PART', 'PROVIDER_CONTINUITY', 'WORKLOAD_BALANCE', 'PREFERRED_LOCATION'],
  );
  t.is(
    o.score,
    o.rankingFactors.reduce((s, f) => s + f.points, 0),
  );
  t.is(o.score, 30 + 15 + 40 + 10 + 15);
});

test('availability density orders equal scores and never adds points', (t) => {
  const sparse = candidate('a', { slots: [slot(T0 + 9 * HOUR)], evaluatedSlotCount: 10 });
  const dense = candidate('b', { slots: [slot(T0 + 10 * HOUR), slot(T0 + 11 * HOUR)], evaluatedSlotCount: 4 });
  const opts = rank([sparse, dense]);
  t.deepEqual(ids(opts), ['b', 'b', 'a']);
  t.is(opts[0]?.availabilityDensity, 0.5);
  t.is(opts[2]?.availabilityDensity, 0.1);
  t.is(opts[0]?.score, opts[2]?.score);
  t.false(opts.some((o) => o.rankingFactors.some((f) => f.code === 'AVAILABILITY_DENSITY')));
});

const tieCases: { tieBreakers: TieBreaker[]; expected: string[] }[] = [
  // a: late start, low workload; b: early start, high workload; c: in between on both.
  { tieBreakers: ['earliest_start', 'lowest_workload', 'provider_id'], expected: ['b', 'c', 'a'] },
  { tieBreakers: ['lowest_workload', 'earliest_start', 'provider_id'], expected: ['a', 'c', 'b'] },
  { tieBreakers: ['provider_id', 'earliest_start', 'lowest_workload'], expected: ['a', 'b', 'c'] },
  // No tie-breakers: the fixed fallback is slot start, then provider id.
  { tieBreakers: [], expected: ['b', 'c', 'a'] },
];

for (const c of tieCases) {
  test(`tie-breakers ${c.tieBreakers.join(',') || '(none)'}`, (t) => {
    // Weight 0 for workload keeps scores equal so only tie-breakers decide.
    const policy: RankingPolicy = {
      ...DEFAULT_POLICY,
      weights: { ...DEFAULT_POLICY.weights, workloadBalance: 0 },
      tieBreakers: c.tieBreakers,
    };
    const opts = rank(
      [
        candidate('a', { slots: [slot(T0 + 12 * HOUR)], workload: 1 }),
        candidate('b', { slots: [slot(T0 + 8 * HOUR)], workload: 9 }),
        candidate('c', { slots: [slot(T0 + 10 * HOUR)], workload: 5 }),
      ],
      { policy },
    );
    t.deepEqual(ids(opts), c.expected);
  });
}

test('provider_id breaks a tie of start and workload', (t) => {
  const opts = rank([candidate('z'), candidate('m'), candidate('a')]);
  t.deepEqual(ids(opts), ['a', 'm', 'z']);
});

test('maxOptionsPerProvider caps the options of one provider and keeps its best slots', (t) => {
  const many = candidate('a', { slots: [6, 7, 8, 9, 13, 14, 15].map((h) => slot(T0 + h * HOUR)) });
  const other = candidate('b', { slots: [slot(T0 + 20 * HOUR)] });
  const prefs = { dayParts: ['afternoon' as const] };
  const three = rank([many, other], { preferences: prefs });
  t.is(three.filter((o) => o.providerId === 'a').length, 3);
  // The afternoon slots win over earlier morning ones.
  t.deepEqual(
    three.filter((o) => o.providerId === 'a').map((o) => (o.slot.start - T0) / HOUR),
    [13, 14, 15],
  );
  t.is(
    rank([many, other], { preferences: prefs, maxOptionsPerProvider: 1 }).filter((o) => o.providerId === 'a').length,
    1,
  );
  t.is(rank([many, other], { maxOptionsPerProvider: 10 }).filter((o) => o.providerId === 'a').length, 7);
  // Out of range values are clamped to 1..10.
  t.is(rank([many], { maxOptionsPerProvider: 0 }).length, 1);
  t.is(rank([many]).length, 3);
});

test('at most 10 options, ranked 1..n', (t) => {
  const cs = Array.from({ length: 30 }, (_, i) =>
    candidate(`p${String(i).padStart(2, '0')}`, { slots: [slot(T0 + i * HOUR), slot(T0 + (i + 40) * HOUR)] }),
  );
  const opts = rank(cs);
  t.is(opts.length, 10);
  t.deepEqual(
    opts.map((o) => o.rank),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  t.is(rank(cs, { limit: 4 }).length, 4);
});

test('no candidates or no slots give no options', (t) => {
  t.deepEqual(rank([]), []);
  t.deepEqual(rank([candidate('a', { slots: [] })]), []);
});

const dayPartCases: {
  title: string;
  start: number;
  slotTz: string;
  prefTz?: string;
  part: 'morning' | 'afternoon' | 'evening';
  match: boolean;
}[] = [
  // 14:00 UTC is 09:00 in New York (EST, UTC-5).
  {
    title: 'slot timezone decides without a preference timezone',
    start: T0 + 14 * HOUR,
    slotTz: 'America/New_York',
    part: 'morning',
    match: true,
  },
  {
    title: 'preference timezone wins over the slot timezone',
    start: T0 + 14 * HOUR,
    slotTz: 'America/New_York',
    prefTz: 'Europe/Berlin',
    part: 'afternoon',
    match: true,
  },
  {
    title: 'same instant is not morning in Berlin',
    start: T0 + 14 * HOUR,
    slotTz: 'America/New_York',
    prefTz: 'Europe/Berlin',
    part: 'morning',
    match: false,
  },
  // 9 Mar 2026 is after the US switch to EDT (UTC-4): 13:00 UTC is 09:00.
  {
    title: 'daylight saving time is honoured',
    start: Date.UTC(2026, 2, 9, 13),
    slotTz: 'America/New_York',
    part: 'morning',
    match: true,
  },
  {
    title: 'end of a day part is exclusive (12:00 is afternoon)',
    start: T0 + 12 * HOUR,
    slotTz: 'UTC',
    part: 'morning',
    match: false,
  },
  { title: '22:00 is no day part', start: T0 + 22 * HOUR, slotTz: 'UTC', part: 'evening', match: false },
  { title: '05:00 starts the morning', start: T0 + 5 * HOUR, slotTz: 'UTC', part: 'morning', match: true },
  {
    title: 'an invalid preference timezone falls back to the slot timezone',
    start: T0 + 14 * HOUR,
    slotTz: 'America/New_York',
    prefTz: 'Mars/Olympus',
    part: 'morning',
    match: true,
  },
  { title: 'fixed offsets work', start: T0 + 4 * HOUR, slotTz: '+05:30', part: 'morning', match: true },
];

for (const c of dayPartCases) {
  test(`day parts: ${c.title}`, (t) => {
    const opts = rank([candidate('a', { slots: [{ start: c.start, end: c.start + HOUR, timezone: c.slotTz }] })], {
      preferences: { dayParts: [c.part], timezone: c.prefTz },
    });
    t.is(
      opts[0]?.rankingFactors.some((f) => f.code === 'PREFERRED_DAY_PART'),
      c.match,
    );
  });
}

// A tiny deterministic PRNG so the randomized tests are repeatable.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomCandidates(n: number, rnd: () => number): RankingCandidate[] {
  return Array.from({ length: n }, (_, i) => {
    const slotCount = Math.floor(rnd() * 6);
    const starts = new Set<number>();
    while (starts.size < slotCount) starts.add(T0 + Math.floor(rnd() * 20) * 2 * HOUR);
    return candidate(`p${i}`, {
      languageCodes: rnd() < 0.5 ? ['es'] : ['en'],
      continuity: rnd() < 0.2,
      workload: Math.floor(rnd() * 3),
      location: rnd() < 0.5 ? 'Austin' : 'Dallas',
      slots: [...starts].sort((x, y) => x - y).map((s) => slot(s, rnd() < 0.5 ? 'America/Chicago' : 'UTC')),
      evaluatedSlotCount: slotCount + Math.floor(rnd() * 3),
    });
  });
}

const randomPrefs: RankOptionsInput['preferences'] = {
  languageCodes: ['es'],
  dayParts: ['morning'],
  earliestAvailable: true,
  location: 'austin',
};

test('determinism: shuffled input gives the same output', (t) => {
  const rnd = prng(7);
  const cs = randomCandidates(200, rnd);
  const expected = rank(cs, { preferences: randomPrefs });
  t.is(expected.length, 10);
  for (let round = 0; round < 20; round++) {
    const shuffled = [...cs];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j] as RankingCandidate, shuffled[i] as RankingCandidate];
    }
    t.deepEqual(rank(shuffled, { preferences: randomPrefs }), expected);
  }
});

test('bounded selection equals sorting everything and capping per provider', (t) => {
  const rnd = prng(42);
  for (let round = 0; round < 30; round++) {
    const cs = randomCandidates(40, rnd);
    const cap = 1 + Math.floor(rnd() * 4);
    const fast = rank(cs, { preferences: randomPrefs, maxOptionsPerProvider: cap });
    // Reference: every slot as an option (huge limit, cap 10 > slots per provider), sorted, then capped per provider.
    const all = rank(cs, { preferences: randomPrefs, maxOptionsPerProvider: 10, limit: 10_000 });
    const perProvider = new Map<string, number>();
    const reference = all
      .filter((o) => {
        const n = (perProvider.get(o.providerId) ?? 0) + 1;
        perProvider.set(o.providerId, n);
        return n <= cap;
      })
      .slice(0, 10);
    t.deepEqual(
      fast.map((o) => [o.providerId, o.slot.start, o.score]),
      reference.map((o) => [o.providerId, o.slot.start, o.score]),
    );
    // And the full list really is sorted by the documented keys.
    for (let i = 1; i < all.length; i++) {
      const a = all[i - 1] as RankedOption;
      const b = all[i] as RankedOption;
      // Default tie-breakers: earliest_start, lowest_workload, provider_id.
      const key = (o: RankedOption) => [-o.score, -o.availabilityDensity, o.slot.start, o.workload] as const;
      const [ka, kb] = [key(a), key(b)];
      const firstDiff = ka.findIndex((v, k) => v !== kb[k]);
      t.true(firstDiff === -1 ? a.providerId <= b.providerId : (ka[firstDiff] as number) < (kb[firstDiff] as number));
    }
  }
});

test('a provider bound is never worse than any slot of that provider, whatever the weights, preferences and tie-breakers', (t) => {
  // The top-k resolution skips every provider whose bound is worse than the 10th option: a slot beating its own
  // provider's bound would be an option silently lost.
  const parts = ['morning', 'afternoon', 'evening'] as const;
  const weight = fc.constantFrom(0, 5, 15, 25, 12.345, 10_000, -3);
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.record({
        preferredLanguage: weight,
        preferredDayPart: weight,
        earliestAvailable: weight,
        providerContinuity: weight,
        workloadBalance: weight,
        preferredLocation: weight,
      }),
      fc.subarray(['earliest_start', 'lowest_workload', 'provider_id'] as TieBreaker[]),
      fc.record({
        dayParts: fc.subarray([...parts]),
        earliestAvailable: fc.boolean(),
        timezone: fc.constantFrom(undefined, 'Asia/Tokyo', 'America/Chicago'),
      }),
      (seed, weights, tieBreakers, prefs) => {
        const candidates = randomCandidates(30, prng(seed)).filter((c) => c.slots.length > 0);
        if (candidates.length === 0) return true;
        const workloads = candidates.map((c) => workloadOf(c.workload));
        const earliest = Math.min(...candidates.flatMap((c) => c.slots.map((s) => s.start)));
        const preferences = { ...randomPrefs, ...prefs };
        const context = createRankingContext({
          preferences,
          policy: { weights, tieBreakers },
          perProvider: 10,
          limit: 10_000,
          earliest,
          minWorkload: Math.min(...workloads),
          maxWorkload: Math.max(...workloads),
          windowEnd: WINDOW_END,
        });
        return candidates.every((c) => {
          const points = context.providerPoints(c.provider, workloadOf(c.workload), c.continuity);
          const slots: ScoredSlot[] = [];
          context.addCandidate(slots, c, points);
          const preferred = slots.filter((s) => s.dayPartPoints > 0).map((s) => s.start);
          const bound = context.boundOf({
            providerId: c.provider.id,
            points,
            workload: workloadOf(c.workload),
            lowestStart: Math.min(...c.slots.map((s) => s.start)),
            preferredFrom: preferred.length > 0 ? Math.min(...preferred) : Infinity,
            maxKept: c.slots.length,
            evaluated: c.evaluatedSlotCount ?? c.slots.length,
          });
          return bound !== undefined && slots.every((s) => context.compare(bound, s) <= 0);
        });
      },
    ),
    { numRuns: 300 },
  );
  t.pass();
});

test('a weight that is not a finite number admits no bound (every provider must then be ranked)', (t) => {
  const context = createRankingContext({
    preferences: {},
    policy: { weights: { ...DEFAULT_POLICY.weights, preferredLocation: Number.NaN }, tieBreakers: [] },
    perProvider: 3,
    limit: 10,
    earliest: T0,
    minWorkload: 0,
    maxWorkload: 0,
    windowEnd: WINDOW_END,
  });
  const points = context.providerPoints({ languageCodes: [], specialtyCodes: [] }, 0, false);
  t.is(
    context.boundOf({
      providerId: 'a',
      points,
      workload: 0,
      lowestStart: T0,
      preferredFrom: -Infinity,
      maxKept: 3,
      evaluated: 10,
    }),
    undefined,
  );
});
