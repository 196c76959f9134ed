import { IANAZone } from 'luxon';
import { dayNumberOf } from './local-date.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * One local date of one IANA zone, reduced to plain numbers so that converting a wall-clock time of that
 * date to an instant is arithmetic, not a time-zone lookup.
 *
 * Sampling covers the UTC span from 14 hours before to 36 hours after the date's midnight read as UTC,
 * which contains the whole local day for every offset (-12h..+14h). At most one offset change inside
 * that span is modelled; two changes within about two days do not occur in current tz data.
 */
export interface ZoneDay {
  /** The local date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Days since 1970-01-01 of the date. */
  readonly dayNumber: number;
  /** Local midnight of the date written as if it were UTC (Date.UTC of the date). */
  readonly localMidnight: number;
  /** UTC offset in ms in force before `transition`. */
  readonly offsetBefore: number;
  /** UTC offset in ms in force from `transition` on (equals offsetBefore when there is none). */
  readonly offsetAfter: number;
  /** UTC instant (epoch ms) at which the offset changes, or Infinity on an ordinary day. */
  readonly transition: number;
}

const cache = new Map<string, Map<string, ZoneDay>>();

/** Answers whether a string names an IANA time zone known to this runtime. */
export function isValidTimezone(zone: unknown): zone is string {
  return typeof zone === 'string' && zone.length > 0 && IANAZone.isValidZone(zone);
}

/**
 * The ZoneDay of `date` in `zone` (memoized: the result depends only on the arguments and tz data).
 * Throws RangeError on an unknown zone or malformed date.
 */
export function zoneDay(zone: string, date: string): ZoneDay {
  let byDate = cache.get(zone);
  if (byDate === undefined) {
    if (!isValidTimezone(zone)) throw new RangeError(`Unknown IANA time zone: ${zone}`);
    byDate = new Map();
    cache.set(zone, byDate);
  }
  let day = byDate.get(date);
  if (day === undefined) {
    day = computeZoneDay(IANAZone.create(zone), date);
    // Bounded memo; a request only ever touches a few weeks of dates per zone.
    if (byDate.size > 4_000) byDate.clear();
    byDate.set(date, day);
  }
  return day;
}

function computeZoneDay(zone: IANAZone, date: string): ZoneDay {
  const dayNumber = dayNumberOf(date);
  if (dayNumber === undefined) throw new RangeError(`Not a YYYY-MM-DD date: ${date}`);
  const localMidnight = dayNumber * DAY_MS;
  let lo = localMidnight - 14 * HOUR_MS;
  let hi = localMidnight + 36 * HOUR_MS;
  const offsetBefore = zone.offset(lo) * MINUTE_MS;
  const offsetAfter = zone.offset(hi) * MINUTE_MS;
  if (offsetBefore === offsetAfter) {
    return { date, dayNumber, localMidnight, offsetBefore, offsetAfter, transition: Infinity };
  }
  // Binary search for the first millisecond with the new offset.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offset(mid) * MINUTE_MS === offsetBefore) lo = mid;
    else hi = mid;
  }
  return { date, dayNumber, localMidnight, offsetBefore, offsetAfter, transition: hi };
}

/**
 * The instant of a wall-clock time `localMs` (ms since local midnight, may reach 24:00 and beyond) on this day,
 * taking the FIRST occurrence of an ambiguous time (fall back) and NaN for a time that does not exist
 * (inside a spring-forward gap).
 */
export function firstOccurrence(day: ZoneDay, localMs: number): number {
  const local = day.localMidnight + localMs;
  const before = local - day.offsetBefore;
  if (day.transition === Infinity) return before;
  const after = local - day.offsetAfter;
  const beforeValid = before < day.transition;
  const afterValid = after >= day.transition;
  if (beforeValid && afterValid) return before < after ? before : after;
  if (beforeValid) return before;
  if (afterValid) return after;
  return Number.NaN;
}

/**
 * The instant of a wall-clock time per RFC 5545 section 3.3.5: the first occurrence of an ambiguous time, and
 * a nonexistent time read with the offset in force before the gap (02:30 on a US spring-forward day is 03:30).
 */
export function rfc5545Instant(day: ZoneDay, localMs: number): number {
  const instant = firstOccurrence(day, localMs);
  return Number.isNaN(instant) ? day.localMidnight + localMs - day.offsetBefore : instant;
}

/**
 * The instant at which a window ending at `localMs` ends: its first occurrence, or the offset change itself
 * when the end lies in a spring-forward gap (the window then covers every real minute up to the gap).
 */
export function windowEndInstant(day: ZoneDay, localMs: number): number {
  const instant = firstOccurrence(day, localMs);
  return Number.isNaN(instant) ? day.transition : instant;
}
