/** Wall-clock times of day written `HH:MM`, as minutes since local midnight. */

const ZERO = 48; // '0'
const COLON = 58; // ':'

/** Minutes since midnight of `HH:MM` (00:00-23:59; `24:00` too when `allowEndOfDay`), or undefined when malformed. */
export function parseWallClock(value: unknown, allowEndOfDay = false): number | undefined {
  if (typeof value !== 'string' || value.length !== 5 || value.charCodeAt(2) !== COLON) return undefined;
  // Character arithmetic rather than a regex: schedules of every provider are parsed on each resolution.
  const h1 = value.charCodeAt(0) - ZERO;
  const h2 = value.charCodeAt(1) - ZERO;
  const m1 = value.charCodeAt(3) - ZERO;
  const m2 = value.charCodeAt(4) - ZERO;
  if (!(h1 >= 0 && h1 <= 9 && h2 >= 0 && h2 <= 9 && m1 >= 0 && m1 <= 5 && m2 >= 0 && m2 <= 9)) return undefined;
  const hours = h1 * 10 + h2;
  const minutes = m1 * 10 + m2;
  if (hours === 24 && minutes === 0) return allowEndOfDay ? 1440 : undefined;
  return hours < 24 ? hours * 60 + minutes : undefined;
}

const WALL_CLOCK_LABELS: readonly string[] = Array.from(
  { length: 1441 },
  (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`,
);

/** `HH:MM` of minutes since midnight (0..1440); precomputed because slot generation formats millions of them. */
export function formatWallClock(minutes: number): string {
  const label = WALL_CLOCK_LABELS[minutes];
  if (label === undefined) throw new RangeError(`Minutes out of range: ${minutes}`);
  return label;
}
