/** Calendar-date arithmetic on `YYYY-MM-DD` strings, independent of any time zone. */

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Answers whether a string is a real calendar date written `YYYY-MM-DD` (2025-02-29 is not). */
export function isValidDate(value: unknown): value is string {
  return typeof value === 'string' && dayNumberOf(value) !== undefined;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date, or undefined when it is not a real date. */
export function dayNumberOf(date: string): number | undefined {
  const known = dayNumberCache.get(date);
  if (known !== undefined) return known;
  const match = DATE_PATTERN.exec(date);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  // Date.UTC rolls 02-30 over into March; a round trip catches that.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  const dayNumber = ms / DAY_MS;
  // Bounded memo: requests parse the same few dates for every provider.
  if (dayNumberCache.size > 20_000) dayNumberCache.clear();
  dayNumberCache.set(date, dayNumber);
  return dayNumber;
}

const dayNumberCache = new Map<string, number>();

const dateCache = new Map<number, string>();

/** The `YYYY-MM-DD` date of a day number (days since 1970-01-01). */
export function dateOfDayNumber(dayNumber: number): string {
  let date = dateCache.get(dayNumber);
  if (date === undefined) {
    date = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    // Bounded memo: the hot path asks for the same few weeks over and over.
    if (dateCache.size > 20_000) dateCache.clear();
    dateCache.set(dayNumber, date);
  }
  return date;
}

/** The date `days` after `date` (negative goes back). */
export function addDays(date: string, days: number): string {
  const n = dayNumberOf(date);
  if (n === undefined) throw new RangeError(`Not a YYYY-MM-DD date: ${date}`);
  return dateOfDayNumber(n + days);
}

/** Weekday index of a day number, 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayIndexOfDayNumber(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}
