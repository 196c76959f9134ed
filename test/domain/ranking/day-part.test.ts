import test from 'ava';
import { dayPartOfMinute, isDayPart } from '../../../src/domain/ranking/day-part.js';
import { createMinuteOfDayReader, parseFixedOffset } from '../../../src/domain/ranking/local-minute-of-day.js';

const minuteCases: [string, number, ReturnType<typeof dayPartOfMinute>][] = [
  ['04:59', 4 * 60 + 59, undefined],
  ['05:00', 5 * 60, 'morning'],
  ['11:59', 11 * 60 + 59, 'morning'],
  ['12:00', 12 * 60, 'afternoon'],
  ['16:59', 16 * 60 + 59, 'afternoon'],
  ['17:00', 17 * 60, 'evening'],
  ['21:59', 21 * 60 + 59, 'evening'],
  ['22:00', 22 * 60, undefined],
  ['00:00', 0, undefined],
];

for (const [label, minute, part] of minuteCases) {
  test(`dayPartOfMinute ${label} -> ${part ?? 'none'}`, (t) => {
    t.is(dayPartOfMinute(minute), part);
  });
}

test('isDayPart accepts only the three names', (t) => {
  t.true(isDayPart('evening'));
  t.false(isDayPart('night'));
  t.false(isDayPart(3));
});

const readerCases: { title: string; epochMs: number; tz: string; expected: number | undefined }[] = [
  { title: 'UTC', epochMs: Date.UTC(2026, 2, 3, 9, 30), tz: 'UTC', expected: 9 * 60 + 30 },
  {
    title: 'New York before DST (UTC-5)',
    epochMs: Date.UTC(2026, 2, 3, 14, 7),
    tz: 'America/New_York',
    expected: 9 * 60 + 7,
  },
  {
    title: 'New York after DST (UTC-4)',
    epochMs: Date.UTC(2026, 2, 9, 14, 7),
    tz: 'America/New_York',
    expected: 10 * 60 + 7,
  },
  {
    title: 'just before the DST jump (01:59 EST)',
    epochMs: Date.UTC(2026, 2, 8, 6, 59),
    tz: 'America/New_York',
    expected: 60 + 59,
  },
  {
    title: 'at the DST jump (03:00 EDT)',
    epochMs: Date.UTC(2026, 2, 8, 7, 0),
    tz: 'America/New_York',
    expected: 3 * 60,
  },
  { title: 'half-hour zone', epochMs: Date.UTC(2026, 2, 3, 0, 0), tz: 'Asia/Kolkata', expected: 5 * 60 + 30 },
  { title: 'wraps past midnight', epochMs: Date.UTC(2026, 2, 3, 23, 50), tz: 'Europe/Berlin', expected: 50 },
  { title: 'fixed negative offset', epochMs: Date.UTC(2026, 2, 3, 2, 0), tz: '-05:00', expected: 21 * 60 },
  { title: 'invalid timezone', epochMs: Date.UTC(2026, 2, 3), tz: 'Nowhere/Land', expected: undefined },
];

for (const c of readerCases) {
  test(`minute of day: ${c.title}`, (t) => {
    const read = createMinuteOfDayReader();
    t.is(read(c.epochMs, c.tz), c.expected);
    // The cached second read agrees with the first.
    t.is(read(c.epochMs, c.tz), c.expected);
  });
}

test('parseFixedOffset', (t) => {
  t.is(parseFixedOffset('+05:30'), 330);
  t.is(parseFixedOffset('-03:00'), -180);
  t.is(parseFixedOffset('Z'), 0);
  t.is(parseFixedOffset('America/New_York'), undefined);
  t.is(parseFixedOffset('+25:00'), undefined);
});
