import type { Interval } from './busy-intervals.js';

/**
 * The parts of `from` that no interval of `minus` covers, within `[clipStart, clipEnd)`; both lists NORMALIZED
 * (normalizeBusy). Answers normalized intervals: busy time that was in one copy of a calendar and is gone from the next.
 */
export function subtractIntervals(
  from: readonly Interval[],
  minus: readonly Interval[],
  clipStart = -Infinity,
  clipEnd = Infinity,
): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const a of from) {
    let start = Math.max(a.start, clipStart);
    const end = Math.min(a.end, clipEnd);
    // Intervals of `minus` that end before this one starts cannot cover any later part of `from` either.
    while (j < minus.length && (minus[j] as Interval).end <= start) j++;
    let k = j;
    while (start < end && k < minus.length && (minus[k] as Interval).start < end) {
      const m = minus[k] as Interval;
      if (m.start > start) out.push({ start, end: m.start });
      start = Math.max(start, m.end);
      k++;
    }
    if (start < end) out.push({ start, end });
  }
  return out;
}
