import test from 'ava';
import type { CalendarConnection, TimeWindow, Weekday } from '../../../src/domain/provider.js';
import {
  countSlots,
  generateSlots,
  scanSlots,
  slotsForLocalDate,
  type SlotRules,
} from '../../../src/domain/availability/slot-generation.js';

const WEEKDAYS: Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function schedule(
  timezone: string,
  windows: TimeWindow[],
  extra: { days?: CalendarConnection['days']; overrides?: CalendarConnection['overrides'] } = {},
): Pick<CalendarConnection, 'timezone' | 'days' | 'overrides'> {
  const days: CalendarConnection['days'] = {};
  for (const day of WEEKDAYS) days[day] = { enabled: true, slots: windows };
  return { timezone, days: { ...days, ...extra.days }, overrides: extra.overrides ?? [] };
}

const LONG_AGO = new Date('2000-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function slotsOn(zone: string, date: string, windows: TimeWindow[], service: SlotRules = { duration: 60 }) {
  return slotsForLocalDate({ schedule: schedule(zone, windows), service, date, now: LONG_AGO, busy: [] });
}

const dstCases: {
  title: string;
  zone: string;
  date: string;
  window: TimeWindow;
  service?: SlotRules;
  expected: [string, string, string][];
}[] = [
  {
    title: 'New York spring forward: 02:00 does not exist, the window holds two real hours',
    zone: 'America/New_York',
    date: '2026-03-08',
    window: { start: '01:00', end: '04:00' },
    expected: [
      ['01:00', '2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z'],
      ['03:00', '2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z'],
    ],
  },
  {
    title: 'New York spring forward, 30-minute slots skip 02:00 and 02:30',
    zone: 'America/New_York',
    date: '2026-03-08',
    window: { start: '01:00', end: '04:00' },
    service: { duration: 30 },
    expected: [
      ['01:00', '2026-03-08T06:00:00.000Z', '2026-03-08T06:30:00.000Z'],
      ['01:30', '2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z'],
      ['03:00', '2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z'],
      ['03:30', '2026-03-08T07:30:00.000Z', '2026-03-08T08:00:00.000Z'],
    ],
  },
  {
    title: 'New York spring forward, a window ending inside the gap ends at the gap',
    zone: 'America/New_York',
    date: '2026-03-08',
    window: { start: '00:00', end: '02:30' },
    service: { duration: 30 },
    expected: [
      ['00:00', '2026-03-08T05:00:00.000Z', '2026-03-08T05:30:00.000Z'],
      ['00:30', '2026-03-08T05:30:00.000Z', '2026-03-08T06:00:00.000Z'],
      ['01:00', '2026-03-08T06:00:00.000Z', '2026-03-08T06:30:00.000Z'],
      ['01:30', '2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z'],
    ],
  },
  {
    title: 'New York fall back: ambiguous 01:00 is its first occurrence (EDT)',
    zone: 'America/New_York',
    date: '2026-11-01',
    window: { start: '00:00', end: '03:00' },
    expected: [
      ['00:00', '2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z'],
      ['01:00', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z'],
      ['02:00', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z'],
    ],
  },
  {
    title: 'New York ordinary days on both sides of the change',
    zone: 'America/New_York',
    date: '2026-03-06',
    window: { start: '09:00', end: '10:00' },
    expected: [['09:00', '2026-03-06T14:00:00.000Z', '2026-03-06T15:00:00.000Z']],
  },
  {
    title: 'New York ordinary summer day',
    zone: 'America/New_York',
    date: '2026-03-09',
    window: { start: '09:00', end: '10:00' },
    expected: [['09:00', '2026-03-09T13:00:00.000Z', '2026-03-09T14:00:00.000Z']],
  },
  {
    title: 'Berlin spring forward',
    zone: 'Europe/Berlin',
    date: '2026-03-29',
    window: { start: '01:00', end: '04:00' },
    expected: [
      ['01:00', '2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z'],
      ['03:00', '2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z'],
    ],
  },
  {
    title: 'Berlin fall back: ambiguous 02:00 is CEST',
    zone: 'Europe/Berlin',
    date: '2026-10-25',
    window: { start: '01:00', end: '04:00' },
    expected: [
      ['01:00', '2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z'],
      ['02:00', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z'],
      ['03:00', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z'],
    ],
  },
  {
    title: 'Sydney spring forward (October, southern hemisphere)',
    zone: 'Australia/Sydney',
    date: '2026-10-04',
    window: { start: '01:00', end: '04:00' },
    expected: [
      ['01:00', '2026-10-03T15:00:00.000Z', '2026-10-03T16:00:00.000Z'],
      ['03:00', '2026-10-03T16:00:00.000Z', '2026-10-03T17:00:00.000Z'],
    ],
  },
  {
    title: 'Sydney fall back (April): ambiguous 02:00 is AEDT',
    zone: 'Australia/Sydney',
    date: '2026-04-05',
    window: { start: '01:00', end: '04:00' },
    expected: [
      ['01:00', '2026-04-04T14:00:00.000Z', '2026-04-04T15:00:00.000Z'],
      ['02:00', '2026-04-04T15:00:00.000Z', '2026-04-04T16:00:00.000Z'],
      ['03:00', '2026-04-04T17:00:00.000Z', '2026-04-04T18:00:00.000Z'],
    ],
  },
  {
    title: 'Sydney winter day: local Monday is Sunday in UTC',
    zone: 'Australia/Sydney',
    date: '2026-07-06',
    window: { start: '09:00', end: '10:00' },
    expected: [['09:00', '2026-07-05T23:00:00.000Z', '2026-07-06T00:00:00.000Z']],
  },
  {
    title: 'a window ending at 24:00 ends at the next local midnight',
    zone: 'Europe/Berlin',
    date: '2026-07-01',
    window: { start: '23:00', end: '24:00' },
    expected: [['23:00', '2026-07-01T21:00:00.000Z', '2026-07-01T22:00:00.000Z']],
  },
];

for (const c of dstCases) {
  test(`DST: ${c.title}`, (t) => {
    const slots = slotsOn(c.zone, c.date, [c.window], c.service);
    t.deepEqual(
      slots.map((s) => [s.localTime, iso(s.start), iso(s.end)]),
      c.expected,
    );
    t.true(slots.every((s) => s.localDate === c.date && s.available));
  });
}

test('dates are local dates of the schedule zone, weekdays included', (t) => {
  // Only Mondays: 2026-07-06 is a Monday in Sydney, although it starts on Sunday in UTC.
  const mondayOnly = schedule('Australia/Sydney', [], {
    days: { monday: { enabled: true, slots: [{ start: '09:00', end: '10:00' }] } },
  });
  const slots = generateSlots({
    schedule: mondayOnly,
    service: { duration: 60 },
    from: '2026-07-01',
    to: '2026-07-15',
    now: LONG_AGO,
    busy: [],
  });
  t.deepEqual(
    slots.map((s) => [s.localDate, iso(s.start)]),
    [
      ['2026-07-06', '2026-07-05T23:00:00.000Z'],
      ['2026-07-13', '2026-07-12T23:00:00.000Z'],
    ],
  );
});

test('the window is half-open over local dates: `to` is excluded', (t) => {
  const slots = generateSlots({
    schedule: schedule('America/New_York', [{ start: '09:00', end: '10:00' }]),
    service: { duration: 60 },
    from: '2026-03-09',
    to: '2026-03-12',
    now: LONG_AGO,
    busy: [],
  });
  t.deepEqual(
    slots.map((s) => s.localDate),
    ['2026-03-09', '2026-03-10', '2026-03-11'],
  );
});

test('disabled days and missing days have no slots', (t) => {
  const s = schedule('UTC', [{ start: '09:00', end: '10:00' }], {
    days: { tuesday: { enabled: false, slots: [{ start: '09:00', end: '10:00' }] }, wednesday: undefined },
  });
  const dates = generateSlots({
    schedule: s,
    service: { duration: 60 },
    from: '2026-03-09',
    to: '2026-03-12',
    now: LONG_AGO,
    busy: [],
  }).map((x) => x.localDate);
  t.deepEqual(dates, ['2026-03-09']); // Monday only; Tuesday disabled, Wednesday absent
});

const overrideCases: { title: string; overrides: CalendarConnection['overrides']; expected: string[] }[] = [
  {
    title: 'an override replaces the weekday windows',
    overrides: [{ date: '2026-03-10', slots: [{ start: '14:00', end: '15:00' }] }],
    expected: ['2026-03-09 09:00', '2026-03-10 14:00', '2026-03-11 09:00'],
  },
  {
    title: 'an empty override is a day off',
    overrides: [{ date: '2026-03-10', slots: [] }],
    expected: ['2026-03-09 09:00', '2026-03-11 09:00'],
  },
  {
    title: 'an override opens a disabled day',
    overrides: [{ date: '2026-03-14', slots: [{ start: '10:00', end: '11:00' }] }],
    expected: ['2026-03-09 09:00', '2026-03-10 09:00', '2026-03-11 09:00', '2026-03-14 10:00'],
  },
  {
    title: 'several windows come out in time order',
    overrides: [
      {
        date: '2026-03-10',
        slots: [
          { start: '16:00', end: '17:00' },
          { start: '08:00', end: '09:00' },
        ],
      },
    ],
    expected: ['2026-03-09 09:00', '2026-03-10 08:00', '2026-03-10 16:00', '2026-03-11 09:00'],
  },
];

for (const c of overrideCases) {
  test(`overrides: ${c.title}`, (t) => {
    const s = schedule('America/New_York', [{ start: '09:00', end: '10:00' }], {
      days: {
        thursday: { enabled: false, slots: [] },
        friday: { enabled: false, slots: [] },
        saturday: { enabled: false, slots: [] },
      },
      overrides: c.overrides,
    });
    const slots = generateSlots({
      schedule: s,
      service: { duration: 60 },
      from: '2026-03-09',
      to: '2026-03-15',
      now: LONG_AGO,
      busy: [],
    });
    t.deepEqual(
      slots.map((x) => `${x.localDate} ${x.localTime}`),
      c.expected,
    );
  });
}

// Monday 2026-03-09 in New York (EDT, UTC-4): 09:00 local = 13:00Z.
const at = (hhmm: string) => Date.parse(`2026-03-09T${hhmm}:00.000Z`);
const ruleCases: { title: string; service: SlotRules; now?: string; busy?: [string, string][]; expected: string[] }[] =
  [
    { title: 'interval defaults to the duration', service: { duration: 60 }, expected: ['09:00+', '10:00+', '11:00+'] },
    {
      title: 'a shorter interval overlaps slots; each must fit the window',
      service: { duration: 60, slotIntervalMinutes: 30 },
      expected: ['09:00+', '09:30+', '10:00+', '10:30+', '11:00+'],
    },
    {
      title: 'a longer interval leaves gaps',
      service: { duration: 30, slotIntervalMinutes: 45 },
      expected: ['09:00+', '09:45+', '10:30+', '11:15+'],
    },
    {
      title: 'past slots are dropped (a slot starting now stays)',
      service: { duration: 30 },
      now: '14:00',
      expected: ['10:00+', '10:30+', '11:00+', '11:30+'],
    },
    {
      title: 'minimum notice drops slots starting before now + notice',
      service: { duration: 30, minimumNoticeMinutes: 61 },
      now: '13:00',
      expected: ['10:30+', '11:00+', '11:30+'],
    },
    {
      title: 'busy time marks overlapping slots unavailable (half-open)',
      service: { duration: 30 },
      busy: [['14:00', '14:30']],
      expected: ['09:00+', '09:30+', '10:00-', '10:30+', '11:00+', '11:30+'],
    },
    {
      title: 'buffer after widens the slot end',
      service: { duration: 30, bufferAfterMinutes: 15 },
      busy: [['14:00', '14:30']],
      expected: ['09:00+', '09:30-', '10:00-', '10:30+', '11:00+', '11:30+'],
    },
    {
      title: 'buffer before widens the slot start',
      service: { duration: 30, bufferBeforeMinutes: 15 },
      busy: [['14:00', '14:30']],
      expected: ['09:00+', '09:30+', '10:00-', '10:30-', '11:00+', '11:30+'],
    },
    {
      title: 'overlapping, unsorted busy intervals',
      service: { duration: 30 },
      busy: [
        ['15:10', '15:20'],
        ['13:00', '13:10'],
        ['13:05', '13:40'],
      ],
      expected: ['09:00-', '09:30-', '10:00+', '10:30+', '11:00-', '11:30+'],
    },
  ];

for (const c of ruleCases) {
  test(`rules: ${c.title}`, (t) => {
    const slots = generateSlots({
      schedule: schedule('America/New_York', [{ start: '09:00', end: '12:00' }]),
      service: c.service,
      from: '2026-03-09',
      to: '2026-03-10',
      now: c.now === undefined ? LONG_AGO : new Date(at(c.now)),
      busy: (c.busy ?? []).map(([start, end]) => ({ start: at(start), end: at(end) })),
    });
    t.deepEqual(
      slots.map((s) => `${s.localTime}${s.available ? '+' : '-'}`),
      c.expected,
    );
    for (const s of slots) t.is(s.end - s.start, c.service.duration * 60_000);
  });
}

test('slotsForLocalDate lists taken slots as unavailable and leaves out past ones', (t) => {
  const slots = slotsForLocalDate({
    schedule: schedule('America/New_York', [{ start: '09:00', end: '12:00' }]),
    service: { duration: 60 },
    date: '2026-03-09',
    now: new Date(at('13:30')),
    busy: [{ start: at('15:00'), end: at('16:00') }],
  });
  t.deepEqual(
    slots.map((s) => [s.localTime, s.available]),
    [
      ['10:00', true],
      ['11:00', false],
    ],
  );
});

test('scanSlots visits what generateSlots lists and stops when told', (t) => {
  const input = {
    schedule: schedule('Europe/Berlin', [{ start: '08:00', end: '12:00' }]),
    service: { duration: 30 },
    from: '2026-10-20',
    to: '2026-10-30',
    now: LONG_AGO,
    busy: [{ start: Date.parse('2026-10-21T07:00:00Z'), end: Date.parse('2026-10-21T08:00:00Z') }],
  };
  const listed = generateSlots(input).map((s) => [s.start, s.end, s.localDate, s.available]);
  const visited: unknown[] = [];
  scanSlots(input, (start, end, date, _minute, available) => {
    visited.push([start, end, date, available]);
  });
  t.deepEqual(visited, listed);
  let count = 0;
  scanSlots(input, () => (count += 1) < 3);
  t.is(count, 3);
});

test('invalid inputs throw', (t) => {
  const s = schedule('UTC', [{ start: '09:00', end: '10:00' }]);
  t.throws(
    () =>
      generateSlots({
        schedule: s,
        service: { duration: 0 },
        from: '2026-03-09',
        to: '2026-03-10',
        now: LONG_AGO,
        busy: [],
      }),
    { instanceOf: RangeError },
  );
  t.throws(
    () =>
      generateSlots({
        schedule: s,
        service: { duration: 30 },
        from: '2026-02-30',
        to: '2026-03-10',
        now: LONG_AGO,
        busy: [],
      }),
    { instanceOf: RangeError },
  );
  t.throws(
    () =>
      generateSlots({
        schedule: { ...s, timezone: 'Mars/Base' },
        service: { duration: 30 },
        from: '2026-03-09',
        to: '2026-03-10',
        now: LONG_AGO,
        busy: [],
      }),
    { instanceOf: RangeError },
  );
});

test('availability agrees with a linear overlap check on random busy data, even for overlapping windows', (t) => {
  let seed = 11;
  const random = (n: number) => {
    seed = (seed * 48_271) % 2_147_483_647;
    return Math.floor((seed / 2_147_483_647) * n);
  };
  const base = Date.parse('2026-03-09T00:00:00Z');
  // Overlapping windows can only come from a schedule stored without validation; availability must stay exact.
  const s = schedule('America/New_York', [
    { start: '09:00', end: '12:00' },
    { start: '08:00', end: '10:00' },
    { start: '13:00', end: '17:00' },
  ]);
  for (let round = 0; round < 50; round += 1) {
    const busy = Array.from({ length: random(8) }, () => {
      // Mostly short busy spells around the overlapping morning windows (12:00Z-16:00Z), some anywhere.
      const start = base + (random(3) === 0 ? random(4 * 24 * 60) : 12 * 60 + random(4 * 60)) * 60_000;
      return { start, end: start + (1 + random(random(2) === 0 ? 20 : 120)) * 60_000 };
    });
    const service = {
      duration: 15 + random(60),
      slotIntervalMinutes: 5 + random(40),
      bufferBeforeMinutes: random(20),
      bufferAfterMinutes: random(20),
    };
    const slots = generateSlots({ schedule: s, service, from: '2026-03-09', to: '2026-03-13', now: LONG_AGO, busy });
    t.true(slots.length > 0);
    for (const slot of slots) {
      const from = slot.start - service.bufferBeforeMinutes * 60_000;
      const to = slot.end + service.bufferAfterMinutes * 60_000;
      t.is(slot.available, !busy.some((b) => b.start < to && b.end > from));
    }
  }
});

test('a slot of a later, overlapping window still sees busy time an earlier window stepped past', (t) => {
  const s = schedule('America/New_York', [
    { start: '09:00', end: '12:00' },
    { start: '08:00', end: '10:00' },
  ]);
  const slots = slotsForLocalDate({
    schedule: s,
    service: { duration: 15, slotIntervalMinutes: 30 },
    date: '2026-03-09',
    now: LONG_AGO,
    busy: [{ start: at('13:10'), end: at('13:20') }],
  });
  t.deepEqual(
    slots.filter((x) => x.localTime === '09:00').map((x) => x.available),
    [false, false],
  );
});

test('countSlots equals the number of slots scanSlots visits (DST days, notice cut-off, overrides, uneven steps)', (t) => {
  let seed = 12345;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata', 'America/Los_Angeles', 'UTC'];
  const starts = ['2026-03-05', '2026-03-26', '2026-10-01', '2026-10-22', '2026-11-28', '2026-04-01'];
  for (let i = 0; i < 300; i++) {
    const windows: TimeWindow[] = [];
    let m = Math.floor(rnd() * 8) * 30;
    while (m < 22 * 60 && windows.length < 3) {
      const len = 15 + Math.floor(rnd() * 300);
      const end = Math.min(m + len, 24 * 60);
      windows.push({ start: hhmm(m), end: end === 24 * 60 ? '24:00' : hhmm(end) });
      m = end + Math.floor(rnd() * 120);
    }
    const from = pick(starts);
    const sched = schedule(pick(zones), windows, {
      days: { saturday: { enabled: rnd() < 0.5, slots: windows } },
      overrides: rnd() < 0.3 ? [{ date: from, slots: rnd() < 0.5 ? [] : [{ start: '10:00', end: '12:30' }] }] : [],
    });
    const service: SlotRules = {
      duration: pick([15, 30, 45, 50, 60, 90]),
      slotIntervalMinutes: rnd() < 0.5 ? undefined : pick([10, 15, 20, 45]),
      minimumNoticeMinutes: pick([0, 60, 1440]),
    };
    const to = new Date(Date.parse(`${from}T00:00:00Z`) + (1 + Math.floor(rnd() * 14)) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const now = new Date(Date.parse(`${from}T00:00:00Z`) + Math.floor(rnd() * 4 * 86_400_000) - 86_400_000);
    let visited = 0;
    scanSlots({ schedule: sched, service, from, to, now, busy: [] }, () => {
      visited++;
    });
    t.is(
      countSlots({ schedule: sched, service, from, to, now }),
      visited,
      `case ${i}: ${JSON.stringify({ sched, service, from, to, now })}`,
    );
  }
});
