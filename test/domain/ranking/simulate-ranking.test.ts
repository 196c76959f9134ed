import test from 'ava';
import { DEFAULT_POLICY, type RankingPolicy } from '../../../src/domain/ranking/ranking-policy.js';
import { simulate } from '../../../src/domain/ranking/simulate-ranking.js';

const candidates = [
  { providerId: 'prv_a', displayName: 'Ana', languageCodes: ['en'], slotStart: '2026-03-03T09:00:00-05:00' },
  { providerId: 'prv_b', displayName: 'Bea', languageCodes: ['es'], slotStart: '2026-03-03T15:00:00-05:00' },
  { providerId: 'prv_c', displayName: 'Cruz', languageCodes: ['es', 'en'], slotStart: '2026-03-03T10:00:00-05:00' },
];

test('simulate ranks by language and day part with the working copy', (t) => {
  const { ranked } = simulate(DEFAULT_POLICY, candidates, { languageCodes: ['es'], dayParts: ['morning'] });
  t.deepEqual(
    ranked.map((r) => [r.rank, r.providerId, r.score]),
    [
      [1, 'prv_c', 30 + 15 + 10],
      [2, 'prv_b', 30 + 10],
      [3, 'prv_a', 15 + 10],
    ],
  );
  t.is(ranked[0]?.displayName, 'Cruz');
  t.is(ranked[0]?.slotStart, '2026-03-03T10:00:00-05:00');
  t.deepEqual(
    ranked[0]?.rankingFactors.map((f) => f.code),
    ['PREFERRED_LANGUAGE', 'PREFERRED_DAY_PART', 'WORKLOAD_BALANCE'],
  );
});

test('simulate follows the weights it is given', (t) => {
  const dayPartFirst: RankingPolicy = {
    ...DEFAULT_POLICY,
    version: null,
    weights: { ...DEFAULT_POLICY.weights, preferredLanguage: 5, preferredDayPart: 50 },
  };
  const { ranked } = simulate(dayPartFirst, candidates, { languageCodes: ['es'], dayParts: ['morning'] });
  t.deepEqual(
    ranked.map((r) => r.providerId),
    ['prv_c', 'prv_a', 'prv_b'],
  );
});

test('day parts are judged in the offset written in slotStart unless a timezone is given', (t) => {
  const rows = [{ providerId: 'p', displayName: 'P', languageCodes: [], slotStart: '2026-03-03T09:00:00-05:00' }];
  t.true(
    simulate(DEFAULT_POLICY, rows, { dayParts: ['morning'] }).ranked[0]?.rankingFactors.some(
      (f) => f.code === 'PREFERRED_DAY_PART',
    ),
  );
  t.false(
    simulate(DEFAULT_POLICY, rows, { dayParts: ['morning'], timezone: 'Asia/Tokyo' }).ranked[0]?.rankingFactors.some(
      (f) => f.code === 'PREFERRED_DAY_PART',
    ),
  );
});

test('rows of one provider are its slots; every row is returned', (t) => {
  const rows = [
    { providerId: 'p', displayName: 'P', languageCodes: ['en'], slotStart: '2026-03-04T09:00:00Z' },
    { providerId: 'p', displayName: 'P', languageCodes: ['en'], slotStart: '2026-03-03T09:00:00Z' },
    { providerId: 'q', displayName: 'Q', languageCodes: ['en'], slotStart: '2026-03-05T09:00:00Z' },
  ];
  const { ranked } = simulate(DEFAULT_POLICY, rows, { earliestAvailable: true });
  t.deepEqual(
    ranked.map((r) => r.slotStart),
    ['2026-03-03T09:00:00Z', '2026-03-04T09:00:00Z', '2026-03-05T09:00:00Z'],
  );
});

test('simulate of no candidates is empty; a bad timestamp names the row', (t) => {
  t.deepEqual(simulate(DEFAULT_POLICY, [], {}), { ranked: [] });
  const err = t.throws(() =>
    simulate(DEFAULT_POLICY, [{ providerId: 'p', displayName: 'P', languageCodes: [], slotStart: 'soon' }], {}),
  );
  t.regex(err?.message ?? '', /candidates\.0\.slotStart/);
});

test('tie-breakers apply in simulate', (t) => {
  const rows = [
    { providerId: 'prv_b', displayName: 'B', languageCodes: [], slotStart: '2026-03-03T09:00:00Z' },
    { providerId: 'prv_a', displayName: 'A', languageCodes: [], slotStart: '2026-03-03T10:00:00Z' },
  ];
  t.deepEqual(
    simulate(DEFAULT_POLICY, rows, {}).ranked.map((r) => r.providerId),
    ['prv_b', 'prv_a'],
  );
  t.deepEqual(
    simulate({ ...DEFAULT_POLICY, tieBreakers: ['provider_id'] }, rows, {}).ranked.map((r) => r.providerId),
    ['prv_a', 'prv_b'],
  );
});
