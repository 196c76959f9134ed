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
  /** No window of a day starts before the previous one ends, so scanSlots visits starts in increasing order. */
  ordered: boolean;
}

/**
 * The slots of one schedule, window and service shape from a notice cut-off on (see slotCount). The same object is
 * answered for every cut-off giving the same slots, so callers may remember more about those slots keyed by it.
 */
export interface SlotCount {
  /** Slots from the cut-off on, free or busy: what countSlots answers. */
  readonly count: number;
  /** Start (epoch ms) of the earliest of them, Infinity when there is none. */
  readonly firstStart: number;
  /** scanSlots visits them in increasing start order (a day's windows do not overlap), so the first visited is the earliest. */
  readonly inStartOrder: boolean;
}

// A remembered SlotCount: the same slots for every cut-off in (after, firstStart].
interface CountMemo {
  count: number;
  firstStart: number;
  inStartOrder: boolean;
  from: string;
  to: string;
  duration: number;
  step: number;
  after: number;
}

// Schedules with the same timezone and windows have the same slots (providers of a network often share office
// hours), so they share one compiled shape and the counts remembered for it.
interface ScheduleShape extends CompiledSchedule {
  zone: string;
  counts: CountMemo[];
}

// Counts remembered per shape: a few windows and services are asked about at any one time.
const COUNTS_PER_SHAPE = 8;
// Shapes kept for sharing (about 1-2 KB each with their counts); past this many the sharing starts over, while
// schedules compiled before keep theirs.
const MAX_SHAPES = 10_000;

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
export type SlotVisitor = (
  start: number,
  end: number,
  localDate: string,
  minute: number,
  available: boolean,
) => boolean | void;

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
  if (!(service.duration > 0) || !(stepMinutes > 0))
    throw new RangeError('duration and slotIntervalMinutes must be positive.');
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
  return countFrom(input, compileSchedule(input.schedule), undefined);
}

/**
 * slotCount answers what countSlots answers, and the first of those slots' starts, remembered per schedule shape,
 * window and service: the answer changes only when the cut-off passes a slot start, so resolutions asking about
 * the same window minutes apart, and providers with the same hours, share one count instead of walking the window.
 */
export function slotCount(
  schedule: GenerateSlotsInput['schedule'],
  service: SlotRules,
  window: { from: string; to: string },
  now: Date,
): SlotCount {
  const shape = shapeOf(schedule);
  const { from, to } = window;
  const duration = service.duration;
  const step = service.slotIntervalMinutes ?? duration;
  const cutoff = now.getTime() + (service.minimumNoticeMinutes ?? 0) * MINUTE_MS;
  const memos = shape.counts;
  for (const m of memos) {
    if (
      m.after < cutoff &&
      cutoff <= m.firstStart &&
      m.from === from &&
      m.to === to &&
      m.duration === duration &&
      m.step === step
    )
      return m;
  }
  const memo: CountMemo = {
    from,
    to,
    duration,
    step,
    after: -Infinity,
    firstStart: Infinity,
    count: 0,
    inStartOrder: shape.ordered,
  };
  memo.count = countFrom({ schedule, service, from, to, now }, shape, memo);
  if (memos.length >= COUNTS_PER_SHAPE) memos.shift();
  memos.push(memo);
  return memo;
}

// The count is #{starts >= cutoff}; with `bounds`, also the largest start before the cut-off and the smallest at or
// after it, between which any other cut-off gives the same count.
function countFrom(
  input: Omit<GenerateSlotsInput, 'busy'>,
  compiled: CompiledSchedule,
  bounds: CountMemo | undefined,
): number {
  const fromDay = dayNumberOf(input.from);
  const toDay = dayNumberOf(input.to);
  if (fromDay === undefined || toDay === undefined) throw new RangeError('from and to must be YYYY-MM-DD dates.');
  const { service } = input;
  const duration = service.duration;
  const stepMinutes = service.slotIntervalMinutes ?? duration;
  if (!(duration > 0) || !(stepMinutes > 0)) throw new RangeError('duration and slotIntervalMinutes must be positive.');
  const durationMs = duration * MINUTE_MS;
  const cutoff = input.now.getTime() + (service.minimumNoticeMinutes ?? 0) * MINUTE_MS;
  const zone = input.schedule.timezone;
  let count = 0;
  let after = -Infinity;
  let upTo = Infinity;
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
        if (windowEnd - windowStart >= duration) {
          count += Math.floor((windowEnd - windowStart - duration) / stepMinutes) + 1;
          const first = base + windowStart * MINUTE_MS;
          if (first < upTo) upTo = first;
        }
        continue;
      }
      const ordinary = day.transition === Infinity;
      const endInstant = ordinary ? base + windowEnd * MINUTE_MS : windowEndInstant(day, windowEnd * MINUTE_MS);
      for (let minute = windowStart; minute < windowEnd; minute += stepMinutes) {
        const start = ordinary ? base + minute * MINUTE_MS : firstOccurrence(day, minute * MINUTE_MS);
        if (start !== start) continue;
        if (start + durationMs > endInstant) break;
        if (start >= cutoff) {
          count += 1;
          if (start < upTo) upTo = start;
        } else if (start > after) {
          after = start;
        }
      }
    }
  }
  if (bounds !== undefined) {
    bounds.after = after;
    bounds.firstStart = upTo;
  }
  return count;
}

let firstFreeStart = Number.NaN;
// One visitor shared by every call (the scan is synchronous), so finding a provider's first free slot allocates nothing.
const stopAtFirstFree: SlotVisitor = (start, _end, _date, _minute, available) => {
  if (!available) return true;
  firstFreeStart = start;
  return false;
};

/** The start (epoch ms) of the first available slot scanSlots visits, or NaN when no slot is available. */
export function firstFreeSlotStart(input: GenerateSlotsInput): number {
  firstFreeStart = Number.NaN;
  scanSlots(input, stopAtFirstFree);
  return firstFreeStart;
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
// The days/overrides references and the timezone are kept to notice a schedule object changed in place.
const compiledCache = new WeakMap<object, { shape: ScheduleShape; days: unknown; list: unknown; zone: string }>();
const shapes = new Map<string, ScheduleShape>();

function compileSchedule(schedule: GenerateSlotsInput['schedule']): CompiledSchedule {
  return shapeOf(schedule);
}

function shapeOf(schedule: GenerateSlotsInput['schedule']): ScheduleShape {
  const hit = compiledCache.get(schedule);
  if (
    hit !== undefined &&
    hit.days === schedule.days &&
    hit.list === schedule.overrides &&
    hit.zone === schedule.timezone
  )
    return hit.shape;
  const compiled = compileScheduleWindows(schedule);
  const zone = schedule.timezone;
  const key = `${zone}\u0000${compiled.weekly.map((w) => w.join(',')).join('|')}\u0000${[...compiled.overrides].map(([date, w]) => `${date}=${w.join(',')}`).join('|')}`;
  let shape = shapes.get(key);
  if (shape === undefined) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shape = { ...compiled, zone, counts: [] };
    shapes.set(key, shape);
  }
  compiledCache.set(schedule, { shape, days: schedule.days, list: schedule.overrides, zone });
  return shape;
}

function compileScheduleWindows(schedule: GenerateSlotsInput['schedule']): CompiledSchedule {
  const weekly: (readonly number[])[] = [];
  for (const key of WEEKDAY_KEYS) {
    const day = schedule.days[key];
    weekly.push(day?.enabled === true ? flattenWindows(day.slots) : NO_WINDOWS);
  }
  const list = schedule.overrides ?? [];
  if (list.length === 0) return { weekly, overrides: NO_OVERRIDES, ordered: weekly.every(disjoint) };
  const overrides = new Map<string, readonly number[]>();
  for (const override of list) overrides.set(override.date, flattenWindows(override.slots));
  return { weekly, overrides, ordered: weekly.every(disjoint) && [...overrides.values()].every(disjoint) };
}

// Sorted windows none of which starts before the previous one ends.
function disjoint(flat: readonly number[]): boolean {
  for (let i = 2; i < flat.length; i += 2) if ((flat[i] as number) < (flat[i - 1] as number)) return false;
  return true;
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
