import { dateOfDayNumber, dayNumberOf } from './local-date.js';

/** Longest dateRange, in days (CONTRACT part 4). */
export const MAX_DATE_RANGE_DAYS = 14;

/** A half-open window of local dates: from `from` 00:00 (inclusive) to `to` 00:00 (exclusive). */
export interface DateWindow {
  from: string;
  to: string;
  /** Number of local dates in the window (1..14). */
  days: number;
}

/** Why a dateRange was refused. */
export interface DateRangeProblem {
  field: string;
  code: 'INVALID_DATE_RANGE';
  message: string;
}

/** Parses a dateRange `{from, to}` into a DateWindow, or returns the INVALID_DATE_RANGE problem. */
export function parseDateRange(
  range: unknown,
  field = 'dateRange',
): { ok: true; window: DateWindow } | { ok: false; problem: DateRangeProblem } {
  const fail = (at: string, message: string) => ({
    ok: false as const,
    problem: { field: at, code: 'INVALID_DATE_RANGE' as const, message },
  });
  if (typeof range !== 'object' || range === null)
    return fail(field, `${field} must be {from, to} with YYYY-MM-DD dates.`);
  const { from, to } = range as { from?: unknown; to?: unknown };
  const fromDay = typeof from === 'string' ? dayNumberOf(from) : undefined;
  if (fromDay === undefined) return fail(`${field}.from`, `${field}.from must be a real date written YYYY-MM-DD.`);
  const toDay = typeof to === 'string' ? dayNumberOf(to) : undefined;
  if (toDay === undefined) return fail(`${field}.to`, `${field}.to must be a real date written YYYY-MM-DD.`);
  const days = toDay - fromDay;
  if (days <= 0) return fail(`${field}.to`, `${field}.to must be after ${field}.from (the window excludes \`to\`).`);
  if (days > MAX_DATE_RANGE_DAYS) {
    return fail(`${field}.to`, `${field} spans ${days} days; at most ${MAX_DATE_RANGE_DAYS} are allowed.`);
  }
  return { ok: true, window: { from: from as string, to: to as string, days } };
}

/** The local dates of a half-open window, in order. */
export function datesOfWindow(window: { from: string; to: string }): string[] {
  const from = dayNumberOf(window.from);
  const to = dayNumberOf(window.to);
  if (from === undefined || to === undefined) throw new RangeError('Window dates must be YYYY-MM-DD.');
  const dates: string[] = [];
  for (let n = from; n < to; n += 1) dates.push(dateOfDayNumber(n));
  return dates;
}
