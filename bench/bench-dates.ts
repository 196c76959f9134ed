const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` plus `days` calendar days. */
export function addDays(ymd: string, days: number): string {
  return new Date(Date.parse(`${ymd}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Tomorrow's UTC date: the first day of every bench window, so no slot is in the past anywhere in the US. */
export function firstBenchDate(nowMs: number): string {
  return new Date(nowMs + DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday .. 6 = Saturday, for a calendar date. */
export function weekdayOf(ymd: string): number {
  return new Date(`${ymd}T00:00:00Z`).getUTCDay();
}

/** The `n`-th Monday-to-Friday date on or after `from` (n from 0). */
export function nthWeekday(from: string, n: number): string {
  let d = from;
  let seen = -1;
  for (;;) {
    const w = weekdayOf(d);
    if (w !== 0 && w !== 6 && ++seen === n) return d;
    d = addDays(d, 1);
  }
}
