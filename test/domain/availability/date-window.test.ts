import test from 'ava';
import { datesOfWindow, parseDateRange } from '../../../src/domain/availability/date-window.js';

const goodCases: [string, string, number][] = [
  ['2026-03-01', '2026-03-02', 1],
  ['2026-03-01', '2026-03-15', 14],
  ['2026-12-25', '2027-01-08', 14],
  ['2028-02-28', '2028-03-01', 2],
];
for (const [from, to, days] of goodCases) {
  test(`accepts ${from} .. ${to}`, (t) => {
    t.deepEqual(parseDateRange({ from, to }), { ok: true, window: { from, to, days } });
  });
}

const badCases: [string, unknown, string][] = [
  ['to equal to from', { from: '2026-03-01', to: '2026-03-01' }, 'dateRange.to'],
  ['to before from', { from: '2026-03-05', to: '2026-03-01' }, 'dateRange.to'],
  ['15 days', { from: '2026-03-01', to: '2026-03-16' }, 'dateRange.to'],
  ['impossible from', { from: '2026-02-30', to: '2026-03-05' }, 'dateRange.from'],
  ['malformed to', { from: '2026-03-01', to: '2026/03/05' }, 'dateRange.to'],
  ['timestamp instead of date', { from: '2026-03-01T00:00:00Z', to: '2026-03-05' }, 'dateRange.from'],
  ['missing to', { from: '2026-03-01' }, 'dateRange.to'],
  ['not an object', 'next week', 'dateRange'],
];
for (const [title, range, field] of badCases) {
  test(`refuses ${title}`, (t) => {
    const result = parseDateRange(range);
    t.false(result.ok);
    if (!result.ok) {
      t.is(result.problem.code, 'INVALID_DATE_RANGE');
      t.is(result.problem.field, field);
      t.true(result.problem.message.length > 10);
    }
  });
}

test('datesOfWindow lists the local dates, excluding `to`', (t) => {
  t.deepEqual(datesOfWindow({ from: '2026-12-30', to: '2027-01-02' }), ['2026-12-30', '2026-12-31', '2027-01-01']);
});
