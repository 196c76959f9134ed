import test from 'ava';
import { isValidDate, isValidTimezone, validateSchedule } from '../../../src/domain/availability/validate-schedule.js';

const valid = {
  timezone: 'America/New_York',
  days: {
    monday: {
      enabled: true,
      slots: [
        { start: '09:00', end: '12:00' },
        { start: '12:00', end: '17:00' },
      ],
    },
    sunday: { enabled: false, slots: [] },
    friday: {
      enabled: true,
      slots: [
        { start: '20:00', end: '24:00' },
        { start: '00:00', end: '01:00' },
      ],
    },
  },
  overrides: [
    { date: '2026-12-25', slots: [] },
    { date: '2026-12-24', slots: [{ start: '09:00', end: '12:00' }] },
  ],
};

test('a valid schedule has no problems', (t) => {
  t.deepEqual(validateSchedule(valid), []);
  t.deepEqual(validateSchedule({ timezone: 'UTC', days: {} }), []);
});

const cases: { title: string; patch: Record<string, unknown>; fields: string[] }[] = [
  { title: 'unknown timezone', patch: { timezone: 'Mars/Olympus' }, fields: ['timezone'] },
  { title: 'missing timezone', patch: { timezone: undefined }, fields: ['timezone'] },
  { title: 'missing days', patch: { days: undefined }, fields: ['days'] },
  { title: 'unknown day key', patch: { days: { funday: { enabled: true, slots: [] } } }, fields: ['days.funday'] },
  {
    title: 'enabled not boolean',
    patch: { days: { monday: { enabled: 'yes', slots: [] } } },
    fields: ['days.monday.enabled'],
  },
  { title: 'slots not an array', patch: { days: { monday: { enabled: true } } }, fields: ['days.monday.slots'] },
  {
    title: 'bad start time',
    patch: { days: { monday: { enabled: true, slots: [{ start: '9:00', end: '10:00' }] } } },
    fields: ['days.monday.slots.0.start'],
  },
  {
    title: '24:00 is only an end',
    patch: { days: { monday: { enabled: true, slots: [{ start: '24:00', end: '24:00' }] } } },
    fields: ['days.monday.slots.0.start'],
  },
  {
    title: 'minutes out of range',
    patch: { days: { tuesday: { enabled: true, slots: [{ start: '09:00', end: '10:60' }] } } },
    fields: ['days.tuesday.slots.0.end'],
  },
  {
    title: 'hour out of range',
    patch: { days: { tuesday: { enabled: true, slots: [{ start: '09:00', end: '25:00' }] } } },
    fields: ['days.tuesday.slots.0.end'],
  },
  {
    title: 'end before start',
    patch: {
      days: {
        monday: {
          enabled: true,
          slots: [
            { start: '09:00', end: '10:00' },
            { start: '12:00', end: '11:00' },
          ],
        },
      },
    },
    fields: ['days.monday.slots.1.end'],
  },
  {
    title: 'end equal to start',
    patch: { days: { monday: { enabled: true, slots: [{ start: '09:00', end: '09:00' }] } } },
    fields: ['days.monday.slots.0.end'],
  },
  {
    title: 'overlapping windows',
    patch: {
      days: {
        monday: {
          enabled: true,
          slots: [
            { start: '13:00', end: '15:00' },
            { start: '09:00', end: '13:30' },
          ],
        },
      },
    },
    fields: ['days.monday.slots.1'],
  },
  {
    title: 'override with an impossible date',
    patch: { overrides: [{ date: '2026-02-29', slots: [] }] },
    fields: ['overrides.0.date'],
  },
  {
    title: 'override with a malformed date',
    patch: { overrides: [{ date: '2026-1-05', slots: [] }] },
    fields: ['overrides.0.date'],
  },
  {
    title: 'override date repeated',
    patch: {
      overrides: [
        { date: '2026-03-01', slots: [] },
        { date: '2026-03-01', slots: [] },
      ],
    },
    fields: ['overrides.1.date'],
  },
  {
    title: 'override windows overlap',
    patch: {
      overrides: [
        {
          date: '2026-03-01',
          slots: [
            { start: '09:00', end: '11:00' },
            { start: '10:00', end: '12:00' },
          ],
        },
      ],
    },
    fields: ['overrides.0.slots.1'],
  },
  { title: 'overrides not an array', patch: { overrides: {} }, fields: ['overrides'] },
];

for (const c of cases) {
  test(`problem: ${c.title}`, (t) => {
    const problems = validateSchedule({ ...valid, ...c.patch });
    t.deepEqual(
      problems.map((p) => p.field),
      c.fields,
    );
    for (const p of problems) {
      t.is(p.code, 'VALIDATION_ERROR');
      t.true(p.message.length > 10);
    }
  });
}

test('a non-object schedule is one problem', (t) => {
  t.is(validateSchedule(null).length, 1);
  t.is(validateSchedule([]).length, 1);
});

test('isValidTimezone and isValidDate', (t) => {
  t.true(isValidTimezone('Australia/Sydney'));
  t.false(isValidTimezone('Australia/Nowhere'));
  t.false(isValidTimezone(''));
  t.false(isValidTimezone(42));
  t.true(isValidDate('2028-02-29'));
  t.false(isValidDate('2027-02-29'));
  t.false(isValidDate('2027-13-01'));
  t.false(isValidDate('2027-1-01'));
  t.false(isValidDate('2027-01-01T00:00:00Z'));
});
