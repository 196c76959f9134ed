import test from 'ava';
import {
  firstOccurrence,
  rfc5545Instant,
  windowEndInstant,
  zoneDay,
} from '../../../src/domain/availability/zone-day.js';

const H = 3_600_000;
const iso = (ms: number) => (Number.isNaN(ms) ? 'NaN' : new Date(ms).toISOString());

const cases: [string, string, string, number, string, string, string][] = [
  // zone, date, title, local ms, firstOccurrence, rfc5545Instant, windowEndInstant
  [
    'America/New_York',
    '2026-03-08',
    'gap 02:30',
    2.5 * H,
    'NaN',
    '2026-03-08T07:30:00.000Z',
    '2026-03-08T07:00:00.000Z',
  ],
  [
    'America/New_York',
    '2026-11-01',
    'ambiguous 01:30',
    1.5 * H,
    '2026-11-01T05:30:00.000Z',
    '2026-11-01T05:30:00.000Z',
    '2026-11-01T05:30:00.000Z',
  ],
  [
    'America/New_York',
    '2026-03-07',
    'day before the change, 23:00',
    23 * H,
    '2026-03-08T04:00:00.000Z',
    '2026-03-08T04:00:00.000Z',
    '2026-03-08T04:00:00.000Z',
  ],
  ['Europe/Berlin', '2026-03-29', 'gap 02:00', 2 * H, 'NaN', '2026-03-29T01:00:00.000Z', '2026-03-29T01:00:00.000Z'],
  [
    'Australia/Sydney',
    '2026-04-05',
    'ambiguous 02:59',
    (2 * 60 + 59) * 60_000,
    '2026-04-04T15:59:00.000Z',
    '2026-04-04T15:59:00.000Z',
    '2026-04-04T15:59:00.000Z',
  ],
  [
    'Australia/Sydney',
    '2026-04-05',
    '24:00 after the 25-hour day',
    24 * H,
    '2026-04-05T14:00:00.000Z',
    '2026-04-05T14:00:00.000Z',
    '2026-04-05T14:00:00.000Z',
  ],
];
for (const [zone, date, title, ms, first, rfc, end] of cases) {
  test(`${zone} ${date} ${title}`, (t) => {
    const day = zoneDay(zone, date);
    t.is(iso(firstOccurrence(day, ms)), first);
    t.is(iso(rfc5545Instant(day, ms)), rfc);
    t.is(iso(windowEndInstant(day, ms)), end);
  });
}

test('the transition instant is found exactly', (t) => {
  t.is(iso(zoneDay('America/New_York', '2026-03-08').transition), '2026-03-08T07:00:00.000Z');
  t.is(iso(zoneDay('Australia/Sydney', '2026-10-04').transition), '2026-10-03T16:00:00.000Z');
  t.is(zoneDay('Asia/Tokyo', '2026-03-08').transition, Infinity);
});
