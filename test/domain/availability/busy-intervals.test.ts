import test from 'ava';
import { normalizeBusy, overlapsBusy, type Interval } from '../../../src/domain/availability/busy-intervals.js';

test('normalizeBusy sorts, merges overlapping and touching intervals, drops empty ones', (t) => {
  const input: Interval[] = [
    { start: 50, end: 60 },
    { start: 10, end: 20 },
    { start: 15, end: 30 },
    { start: 30, end: 35 },
    { start: 40, end: 40 },
    { start: 70, end: 65 },
  ];
  t.deepEqual(normalizeBusy(input), [
    { start: 10, end: 35 },
    { start: 50, end: 60 },
  ]);
  t.deepEqual(input[1], { start: 10, end: 20 }, 'input is not mutated');
});

test('normalizeBusy returns an already normalized list as is', (t) => {
  const input = [
    { start: 1, end: 2 },
    { start: 3, end: 4 },
  ];
  t.is(normalizeBusy(input), input);
});

const overlapCases: [string, number, number, boolean][] = [
  ['before everything', 0, 10, false],
  ['ends where busy starts (half-open)', 5, 10, false],
  ['starts where busy ends (half-open)', 20, 25, false],
  ['inside a gap', 21, 29, false],
  ['overlaps the start of one', 5, 11, true],
  ['overlaps the end of one', 19, 22, true],
  ['inside one', 12, 13, true],
  ['covers several', 0, 100, true],
  ['after everything', 60, 70, false],
];
const busy = [
  { start: 10, end: 20 },
  { start: 30, end: 40 },
  { start: 45, end: 50 },
];
for (const [title, start, end, expected] of overlapCases) {
  test(`overlapsBusy: ${title}`, (t) => {
    t.is(overlapsBusy(busy, start, end), expected);
  });
}

test('overlapsBusy agrees with a linear scan on random data', (t) => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  for (let round = 0; round < 200; round += 1) {
    const raw = Array.from({ length: random(12) }, () => {
      const start = random(500);
      return { start, end: start + 1 + random(40) };
    });
    const list = normalizeBusy(raw);
    const start = random(560);
    const end = start + 1 + random(60);
    const linear = raw.some((i) => i.start < end && i.end > start);
    t.is(overlapsBusy(list, start, end), linear);
  }
});
