import type { CalendarConnection, ProviderService } from '../provider.js';
import { normalizeBusy, type Interval } from './busy-intervals.js';
import { dateOfDayNumber, dayNumberOf, weekdayIndexOfDayNumber } from './local-date.js';
import { formatWallClock, parseWallClock } from './wall-clock.js';
import { firstOccurrence, windowEndInstant, zoneDay } from './zone-day.js';

const MINUTE_MS = 60_000;

/** The scheduling rules of a service that slot generation uses (CONTRACT part 3 defaults apply). */
export type SlotRules = Pick<
  ProviderService,
  'duration' | 'slotIntervalMinutes' | 'minimumNoticeMinutes' | 'bufferBeforeMinutes' | 'bufferAfterMinutes'
>;

/** One candidate slot; `start`/`end` are epoch ms, `localDate`/`localTime` are wall-clock in the schedule's zone. */
export interface Slot {
  start: number;
  end: number;
  localDate: string;
  localTime: string;
  /** False when the slot, widened by the service's buffers, overlaps busy time. */
  available: boolean;
}

/** Input of generateSlots. */
export interface GenerateSlotsInput {
  schedule: Pick<CalendarConnection, 'timezone' | 'days' | 'overrides'>;
  service: SlotRules;
  /** First local date, `YYYY-MM-DD` (inclusive). */
  from: string;
  /** Local date after the last one, `YYYY-MM-DD` (exclusive). */
  to: string;
  now: Date;
  /** Busy time (bookings, holds, feed events); any order, overlaps allowed. */
  busy: readonly Interval[];
}

// Windows per weekday (index 0 = Sunday) and per override date, as flat [start, end, start, end...] minutes.
interface CompiledSchedule {
  weekly: readonly (readonly number[])[];
  overrides: ReadonlyMap<string, readonly number[]>;
}

const WEEKDAY_KEYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const NO_WINDOWS: readonly number[] = [];
const NO_OVERRIDES: ReadonlyMap<string, readonly number[]> = new Map();

/**
 * Lists the candidate slots of a schedule for the local dates `from` (inclusive) to `to` (exclusive), in start order.
 *
 * Dates and times are wall-clock in the schedule's timezone. A date's windows are its override's when one exists
 * (empty = day off), else its weekday's when enabled. Slots start at a window's start and step by
 * `slotIntervalMinutes` (default: duration) in wall-clock minutes; a slot lasts `duration` real minutes and must end
 * by the window's end instant, so a window spanning a spring-forward gap holds fewer real minutes. A start that
 * does not exist (inside the gap) is skipped; an ambiguous start (fall back) means its first occurrence, as in
 * RFC 5545, so the repeated hour after it is not offered again. A window ending inside a gap ends at the gap.
 * Stepping across a gap can yield slots that overlap in real time (e.g. 45-minute steps); each is a valid candidate.
 * Slots starting before `now + minimumNoticeMinutes` are dropped; a slot is unavailable when
 * `[start - bufferBefore, end + bufferAfter)` overlaps busy time.
 */
export function generateSlots(input: GenerateSlotsInput): Slot[] {
  const slots: Slot[] = [];
  scanSlots(input, (start, end, localDate, minute, available) => {
    slots.push({ start, end, localDate, localTime: formatWallClock(minute), available });
  });
  return slots;
}

/**
 * Receives each slot of scanSlots: epoch ms bounds, local date, wall-clock minute of the start, availability.
 * Returning `false` stops the scan.
 */
export type SlotVisitor = (start: number, end: number, localDate: string, minute: number, available: boolean) => boolean | void;

/**
 * Visits the slots generateSlots would list, in the same order, without allocating per slot: the hot path of
 * resolution, which only counts slots and keeps the first few free ones of each provider.
 */
export function scanSlots(input: GenerateSlotsInput, visit: SlotVisitor): void {
  const fromDay = dayNumberOf(input.from);
  const toDay = dayNumberOf(input.to);
  if (fromDay === undefined || toDay === undefined) throw new RangeError('from and to must be YYYY-MM-DD dates.');
  const { service } = input;
  const durationMs = service.duration * MINUTE_MS;
  const stepMinutes = service.slotIntervalMinutes ?? service.duration;
  if (!(service.duration > 0) || !(stepMinutes > 0)) throw new RangeError('duration and slotIntervalMinutes must be positive.');
  const beforeMs = (service.bufferBeforeMinutes ?? 0) * MINUTE_MS;
  const afterMs = (service.bufferAfterMinutes ?? 0) * MINUTE_MS;
  const cutoff = input.now.getTime() + (service.minimumNoticeMinutes ?? 0) * MINUTE_MS;
  const busy = normalizeBusy(input.busy);
  const compiled = compileSchedule(input.schedule);
  const zone = input.schedule.timezone;

  // Slot starts only grow, so one cursor walks the sorted busy list once (the same test as overlapsBusy).
  let cursor = 0;
  let previousFrom = -Infinity;
  const busyCount = busy.length;
  for (let dayNumber = fromDay; dayNumber < toDay; dayNumber += 1) {
    const date = dateOfDayNumber(dayNumber);
    const windows = compiled.overrides.get(date) ?? compiled.weekly[weekdayIndexOfDayNumber(dayNumber)];
    if (windows === undefined || windows.length === 0) continue;
    const day = zoneDay(zone, date);
    const ordinary = day.transition === Infinity;
    // On an ordinary day wall-clock minutes map linearly to instants; only offset-change days need exact conversion.
    const base = day.localMidnight - day.offsetBefore;
    for (let w = 0; w < windows.length; w += 2) {
      const windowStart = windows[w] as number;
      const windowEnd = windows[w + 1] as number;
      const endInstant = ordinary ? base + windowEnd * MINUTE_MS : windowEndInstant(day, windowEnd * MINUTE_MS);
      for (let minute = windowStart; minute < windowEnd; minute += stepMinutes) {
        const start = ordinary ? base + minute * MINUTE_MS : firstOccurrence(day, minute * MINUTE_MS);
        if (start !== start) continue; // NaN: the wall-clock time falls in a spring-forward gap
        const end = start + durationMs;
        if (end > endInstant) break;
        if (start < cutoff) continue;
        const from = start - beforeMs;
        // Overlapping windows (a schedule stored without validation) would break the order: rewind, never miss busy time.
        if (from < previousFrom) cursor = 0;
        previousFrom = from;
        while (cursor < busyCount && (busy[cursor] as Interval).end <= from) cursor += 1;
        const available = cursor === busyCount || (busy[cursor] as Interval).start >= end + afterMs;
        if (visit(start, end, date, minute, available) === false) return;
      }
    }
  }
}

/**
 * Counts the slots scanSlots would visit (every candidate from `now + minimumNotice` on, free or busy) without
 * visiting them: on an ordinary day a window holds floor((end - start - duration) / step) + 1 starts; days with an
 * offset change, and the day the notice cut-off falls in, are counted slot by slot exactly as scanSlots walks them.
 */
export function countSlots(input: Omit<GenerateSlotsInput, 'busy'>): number {
  const fromDay = dayNumberOf(input.from);
  const toDay = dayNumberOf(input.to);
  if (fromDay === undefined || toDay === undefined) throw new RangeError('from and to must be YYYY-MM-DD dates.');
  const { service } = input;
  const duration = service.duration;
  const stepMinutes = service.slotIntervalMinutes ?? duration;
  if (!(duration > 0) || !(stepMinutes > 0)) throw new RangeError('duration and slotIntervalMinutes must be positive.');
  const durationMs = duration * MINUTE_MS;
  const cutoff = input.now.getTime() + (service.minimumNoticeMinutes ?? 0) * MINUTE_MS;
  const compiled = compileSchedule(input.schedule);
  const zone = input.schedule.timezone;
  let count = 0;
  for (let dayNumber = fromDay; dayNumber < toDay; dayNumber += 1) {
    const date = dateOfDayNumber(dayNumber);
    const windows = compiled.overrides.get(date) ?? compiled.weekly[weekdayIndexOfDayNumber(dayNumber)];
    if (windows === undefined || windows.length === 0) continue;
    const day = zoneDay(zone, date);
    const base = day.localMidnight - day.offsetBefore;
    for (let w = 0; w < windows.length; w += 2) {
      const windowStart = windows[w] as number;
      const windowEnd = windows[w + 1] as number;
      if (day.transition === Infinity && base + windowStart * MINUTE_MS >= cutoff) {
        if (windowEnd - windowStart >= duration) count += Math.floor((windowEnd - windowStart - duration) / stepMinutes) + 1;
        continue;
      }
      const ordinary = day.transition === Infinity;
      const endInstant = ordinary ? base + windowEnd * MINUTE_MS : windowEndInstant(day, windowEnd * MINUTE_MS);
      for (let minute = windowStart; minute < windowEnd; minute += stepMinutes) {
        const start = ordinary ? base + minute * MINUTE_MS : firstOccurrence(day, minute * MINUTE_MS);
        if (start !== start) continue;
        if (start + durationMs > endInstant) break;
        if (start >= cutoff) count += 1;
      }
    }
  }
  return count;
}

/** Input of slotsForLocalDate. */
export type SlotsForLocalDateInput = Omit<GenerateSlotsInput, 'from' | 'to'> & { date: string };

/** The v1 slots of one local date: every non-past slot of that date, taken ones with `available` false. */
export function slotsForLocalDate(input: SlotsForLocalDateInput): Slot[] {
  const dayNumber = dayNumberOf(input.date);
  if (dayNumber === undefined) throw new RangeError('date must be a YYYY-MM-DD date.');
  const { date, ...rest } = input;
  return generateSlots({ ...rest, from: date, to: dateOfDayNumber(dayNumber + 1) });
}

// Compiled windows per schedule object: the graph keeps one object per schedule version, so each compiles once.
// The days/overrides references are kept to notice a schedule object changed in place.
const compiledCache = new WeakMap<object, CompiledSchedule & { days: unknown; list: unknown }>();

function compileSchedule(schedule: GenerateSlotsInput['schedule']): CompiledSchedule {
  const hit = compiledCache.get(schedule);
  if (hit !== undefined && hit.days === schedule.days && hit.list === schedule.overrides) return hit;
  const compiled = compileScheduleWindows(schedule);
  compiledCache.set(schedule, { ...compiled, days: schedule.days, list: schedule.overrides });
  return compiled;
}

function compileScheduleWindows(schedule: GenerateSlotsInput['schedule']): CompiledSchedule {
  const weekly: (readonly number[])[] = [];
  for (const key of WEEKDAY_KEYS) {
    const day = schedule.days[key];
    weekly.push(day?.enabled === true ? flattenWindows(day.slots) : NO_WINDOWS);
  }
  const list = schedule.overrides ?? [];
  if (list.length === 0) return { weekly, overrides: NO_OVERRIDES };
  const overrides = new Map<string, readonly number[]>();
  for (const override of list) overrides.set(override.date, flattenWindows(override.slots));
  return { weekly, overrides };
}

function flattenWindows(windows: readonly { start: string; end: string }[]): readonly number[] {
  const flat: number[] = [];
  let sorted = true;
  for (const window of windows) {
    const start = parseWallClock(window.start);
    const end = parseWallClock(window.end, true);
    // Stored schedules were validated on write; a malformed window is ignored rather than guessed at.
    if (start === undefined || end === undefined || start >= end) continue;
    if (flat.length > 0 && start < (flat[flat.length - 2] as number)) sorted = false;
    flat.push(start, end);
  }
  if (sorted) return flat;
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] as number, flat[i + 1] as number]);
  pairs.sort((x, y) => x[0] - y[0]);
  return pairs.flat();
}
