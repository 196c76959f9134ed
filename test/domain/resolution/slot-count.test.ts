// The slot-generation helpers top-k resolution relies on (slotCount, firstFreeSlotStart), checked against scanSlots.
import test from 'ava';
import fc from 'fast-check';
import type { Interval } from '../../../src/domain/availability/busy-intervals.js';
import {
  countSlots,
  firstFreeSlotStart,
  scanSlots,
  slotCount,
  type SlotRules,
} from '../../../src/domain/availability/slot-generation.js';
import type { CalendarConnection, TimeWindow, Weekday } from '../../../src/domain/provider.js';

const MINUTE = 60_000;
const WEEKDAYS: Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

const windowArb: fc.Arbitrary<TimeWindow> = fc
  .tuple(fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 40 }))
  .map(([start, length]) => ({ start: hhmm(start * 15), end: hhmm(Math.min(1440, start * 15 + length * 15)) }));

interface ScheduleDraft {
  timezone: string;
  windows: TimeWindow[];
  overrides: { day: number; windows: TimeWindow[] }[];
}

const scheduleArb: fc.Arbitrary<ScheduleDraft> = fc.record({
  timezone: fc.constantFrom('America/New_York', 'Europe/London', 'Australia/Sydney', 'Asia/Kolkata', 'UTC'),
  windows: fc.array(windowArb, { minLength: 1, maxLength: 3 }),
  overrides: fc.array(
    fc.record({ day: fc.integer({ min: 0, max: 9 }), windows: fc.array(windowArb, { maxLength: 2 }) }),
    { maxLength: 2 },
  ),
});

const rulesArb: fc.Arbitrary<SlotRules> = fc.record({
  duration: fc.constantFrom(15, 30, 50, 60, 90),
  slotIntervalMinutes: fc.option(fc.constantFrom(10, 15, 30, 45), { nil: undefined }),
  minimumNoticeMinutes: fc.option(fc.constantFrom(0, 30, 240), { nil: undefined }),
});

const FROM = '2026-03-05';
const TO = '2026-03-12';
const FROM_MS = Date.parse(`${FROM}T00:00:00Z`);

function scheduleOf(s: ScheduleDraft): CalendarConnection {
  const days: CalendarConnection['days'] = {};
  for (const d of WEEKDAYS) days[d] = { enabled: true, slots: s.windows };
  const overrides = s.overrides.map((o) => ({
    date: new Date(FROM_MS + o.day * 86_400_000).toISOString().slice(0, 10),
    slots: o.windows,
  }));
  return { id: 'cal', organizationId: 'org', providerId: 'p', timezone: s.timezone, days, overrides, status: 'active' };
}

/** What scanSlots visits: every start, the earliest, the first available one, and whether starts only grow. */
function scanned(schedule: CalendarConnection, service: SlotRules, now: Date, busy: readonly Interval[]) {
  const starts: number[] = [];
  let firstFree = Number.NaN;
  scanSlots({ schedule, service, from: FROM, to: TO, now, busy }, (start, _end, _date, _minute, available) => {
    starts.push(start);
    if (available && Number.isNaN(firstFree)) firstFree = start;
  });
  return {
    count: starts.length,
    earliest: Math.min(Infinity, ...starts),
    firstFree,
    increasing: starts.every((s, i) => i === 0 || s > starts[i - 1]!),
  };
}

test('slotCount answers countSlots and the earliest start for any cut-off, remembered or not, and knows when scans run in start order', (t) => {
  fc.assert(
    fc.property(
      scheduleArb,
      rulesArb,
      fc.array(fc.integer({ min: -2 * 1440, max: 8 * 1440 }), { minLength: 1, maxLength: 12 }),
      fc.boolean(),
      (s, service, minutes, exact) => {
        const schedule = scheduleOf(s);
        // The same schedule asked again and again with cut-offs moving both ways: exactly on slot starts (whole
        // minutes, as slots start on minutes), and a millisecond off them.
        for (const m of minutes) {
          for (const offset of exact ? [0, -1, 1] : [0]) {
            const now = new Date(FROM_MS + m * MINUTE + offset);
            const answer = slotCount(schedule, service, { from: FROM, to: TO }, now);
            const scan = scanned(schedule, service, now, []);
            if (
              answer.count !== countSlots({ schedule, service, from: FROM, to: TO, now }) ||
              answer.count !== scan.count
            )
              return false;
            if (answer.firstStart !== scan.earliest) return false;
            if (answer.inStartOrder && !scan.increasing) return false;
          }
        }
        return true;
      },
    ),
    { numRuns: 200 },
  );
  t.pass();
});

test('schedules with the same zone and windows share their counts; a different zone does not', (t) => {
  const days = { monday: { enabled: true, slots: [{ start: '09:00', end: '12:00' }] } };
  const a: CalendarConnection = {
    id: 'a',
    organizationId: 'o',
    providerId: 'a',
    timezone: 'America/New_York',
    days,
    overrides: [],
    status: 'active',
  };
  const b: CalendarConnection = {
    ...a,
    id: 'b',
    providerId: 'b',
    days: { monday: { enabled: true, slots: [{ start: '09:00', end: '12:00' }] } },
  };
  const c: CalendarConnection = { ...a, id: 'c', timezone: 'America/Chicago' };
  const now = new Date('2026-03-01T00:00:00Z');
  const window = { from: '2026-03-02', to: '2026-03-09' };
  const rules = { duration: 60 };
  t.is(slotCount(a, rules, window, now), slotCount(b, rules, window, now));
  t.not(slotCount(a, rules, window, now), slotCount(c, rules, window, now));
  t.is(slotCount(a, rules, window, now).firstStart, Date.parse('2026-03-02T14:00:00Z'));
  t.is(slotCount(c, rules, window, now).firstStart, Date.parse('2026-03-02T15:00:00Z'));
  t.is(slotCount(a, rules, window, now).count, 3);
  // A cut-off past the first slot: a new answer.
  t.is(slotCount(a, rules, window, new Date('2026-03-02T14:00:00.001Z')).count, 2);
  t.is(slotCount(a, rules, window, new Date('2026-03-02T14:00:00.000Z')).count, 3);
});

test('firstFreeSlotStart is the first available slot scanSlots visits, NaN when none is', (t) => {
  const busyArb = fc
    .array(fc.record({ start: fc.integer({ min: -1440, max: 8 * 1440 }), length: fc.integer({ min: 1, max: 600 }) }), {
      maxLength: 40,
    })
    .map((xs) => xs.map((x) => ({ start: FROM_MS + x.start * MINUTE, end: FROM_MS + (x.start + x.length) * MINUTE })));
  fc.assert(
    fc.property(scheduleArb, rulesArb, busyArb, fc.integer({ min: -1440, max: 8 * 1440 }), (s, service, busy, m) => {
      const schedule = scheduleOf(s);
      const now = new Date(FROM_MS + m * MINUTE);
      const rules = { ...service, bufferBeforeMinutes: 10, bufferAfterMinutes: 5 };
      const first = firstFreeSlotStart({ schedule, service: rules, from: FROM, to: TO, now, busy });
      return Object.is(first, scanned(schedule, rules, now, busy).firstFree);
    }),
    { numRuns: 200 },
  );
  t.pass();
});
