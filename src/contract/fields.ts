import { z } from 'zod';

/** Counts Unicode code points, the unit of every length limit (CONTRACT part 1). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A string of at most `max` code points (default 1,000). */
export function text(max = 1000, min = 0) {
  return z.string().max(max * 2).refine((s) => codePoints(s) <= max, { message: `must be at most ${max} characters` })
    .refine((s) => codePoints(s) >= min, { message: min === 1 ? 'must not be empty' : `must be at least ${min} characters` })
    .meta({ maxLength: max, ...(min > 0 ? { minLength: min } : {}) });
}

/** A required, non-blank name-like string of at most 200 code points. */
export const name200 = () => text(200, 1).refine((s) => s.trim().length > 0, { message: 'must not be blank' });

/** A YYYY-MM-DD calendar date that exists. */
export const isoDate = () => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date').refine((s) => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}, { message: 'must be a real calendar date' }).meta({ format: 'date' });

/** An ISO 8601 timestamp (documented as RFC 3339 `date-time`, which every accepted spelling includes). */
export const isoTimestamp = () => z.string().max(40).refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 timestamp' })
  .meta({ format: 'date-time' });

/** An instant as the service answers it: an RFC 3339 timestamp with `Z` or an offset (`2026-05-04T09:00:00.000Z`). */
export const instant = () => z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), { message: 'must be an RFC 3339 timestamp' })
  .meta({ format: 'date-time' });

/** A whole number that cannot be negative: a count, total, version, rank, position, status code or duration. */
export const nonNegativeInt = () => z.number().int().min(0);

/** An IANA time zone name. */
export const ianaTimezone = () => z.string().max(100).refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.includes('/') || tz === 'UTC';
  } catch {
    return false;
  }
}, { message: 'must be an IANA time zone such as America/New_York' });

/** A list of at most 100 items (CONTRACT part 1). */
export function list<T extends z.ZodType>(item: T, max = 100) {
  return z.array(item).max(max);
}

/** Query-string integer in [min, max]. */
export function queryInt(min: number, max: number) {
  return z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(min).max(max));
}

/** Query-string boolean (`true` / `false`). */
export const queryBool = () => z.enum(['true', 'false']).transform((v) => v === 'true');

/** Opaque pagination cursor. */
export const cursor = () => z.string().max(200);
