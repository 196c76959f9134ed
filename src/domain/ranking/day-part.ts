/** Day parts of CONTRACT part 4: morning 05:00-12:00, afternoon 12:00-17:00, evening 17:00-22:00 (local time). */

/** A named part of the day a client may prefer. */
export type DayPart = 'morning' | 'afternoon' | 'evening';

/** Each day part as a half-open range of local minutes of day `[start, end)`. */
export const DAY_PART_RANGES: Readonly<Record<DayPart, { readonly start: number; readonly end: number }>> =
  Object.freeze({
    morning: { start: 5 * 60, end: 12 * 60 },
    afternoon: { start: 12 * 60, end: 17 * 60 },
    evening: { start: 17 * 60, end: 22 * 60 },
  });

/** The day parts in order of the day. */
export const DAY_PARTS: readonly DayPart[] = ['morning', 'afternoon', 'evening'];

/** Whether a string names a day part. */
export function isDayPart(value: unknown): value is DayPart {
  return typeof value === 'string' && (DAY_PARTS as readonly string[]).includes(value);
}

/** The day part a local minute of day (0..1439) falls in; undefined at night (22:00-05:00). */
export function dayPartOfMinute(minuteOfDay: number): DayPart | undefined {
  for (const part of DAY_PARTS) {
    const r = DAY_PART_RANGES[part];
    if (minuteOfDay >= r.start && minuteOfDay < r.end) return part;
  }
  return undefined;
}
