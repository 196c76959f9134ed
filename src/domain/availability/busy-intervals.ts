/** Busy time as half-open intervals of epoch milliseconds, and fast overlap checks against them. */

/** A half-open interval `[start, end)` of epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

/**
 * Busy intervals sorted by start and merged (no two overlap or touch), so that their ends increase too;
 * the form `overlapsBusy` needs. Empty and inverted intervals are dropped. Returns the input itself when it
 * is already in that form (the common case on the hot path).
 */
export function normalizeBusy(intervals: readonly Interval[]): readonly Interval[] {
  if (isNormalized(intervals)) return intervals;
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && interval.start <= last.end) {
      if (interval.end > last.end) last.end = interval.end;
    } else {
      merged.push({ start: interval.start, end: interval.end });
    }
  }
  return merged;
}

function isNormalized(intervals: readonly Interval[]): boolean {
  let previousEnd = -Infinity;
  for (const interval of intervals) {
    if (!(interval.end > interval.start) || interval.start <= previousEnd) return false;
    previousEnd = interval.end;
  }
  return true;
}

/**
 * Answers whether `[start, end)` overlaps any interval of a NORMALIZED busy list (see normalizeBusy),
 * by binary search for the first busy interval ending after `start`.
 */
export function overlapsBusy(busy: readonly Interval[], start: number, end: number): boolean {
  let lo = 0;
  let hi = busy.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((busy[mid] as Interval).end <= start) lo = mid + 1;
    else hi = mid;
  }
  const candidate = busy[lo];
  return candidate !== undefined && candidate.start < end;
}
