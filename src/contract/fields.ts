import { z } from 'zod';
import { findUnstorableValue } from './find-unstorable-input.js';

/** Counts Unicode code points, the unit of every length limit (CONTRACT part 1). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A string of at most `max` code points (default 1,000). */
export function text(max = 1000, min = 0) {
  return z
    .string()
    .max(max * 2)
    .refine((s) => codePoints(s) <= max, { message: `must be at most ${max} characters` })
    .refine((s) => codePoints(s) >= min, {
      message: min === 1 ? 'must not be empty' : `must be at least ${min} characters`,
    })
    .meta({ maxLength: max, ...(min > 0 ? { minLength: min } : {}) });
}

/** A required, non-blank name-like string of at most 200 code points. */
export const name200 = () => text(200, 1).refine((s) => s.trim().length > 0, { message: 'must not be blank' });

/** A YYYY-MM-DD calendar date that exists. */
export const isoDate = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date')
    .refine(
      (s) => {
        const d = new Date(`${s}T00:00:00Z`);
        return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
      },
      { message: 'must be a real calendar date' },
    )
    .meta({ format: 'date' });

/** An ISO 8601 timestamp (documented as RFC 3339 `date-time`, which every accepted spelling includes). */
export const isoTimestamp = () =>
  z
    .string()
    .max(40)
    .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), {
      message: 'must be an ISO 8601 timestamp',
    })
    .meta({ format: 'date-time' });

/** An instant as the service answers it: an RFC 3339 timestamp with `Z` or an offset (`2026-05-04T09:00:00.000Z`). */
export const instant = () =>
  z
    .string()
    .refine(
      (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
      { message: 'must be an RFC 3339 timestamp' },
    )
    .meta({ format: 'date-time' });

/** A whole number that cannot be negative: a count, total, version, rank, position, status code or duration. */
export const nonNegativeInt = () => z.number().int().min(0);

/** An IANA time zone name. */
export const ianaTimezone = () =>
  z
    .string()
    .max(100)
    .refine(
      (tz) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: tz });
          return tz.includes('/') || tz === 'UTC';
        } catch {
          return false;
        }
      },
      { message: 'must be an IANA time zone such as America/New_York' },
    );

/** A list of at most 100 items (CONTRACT part 1). */
export function list<T extends z.ZodType>(item: T, max = 100) {
  return z.array(item).max(max);
}

/** Query-string integer in [min, max]. */
export function queryInt(min: number, max: number) {
  return z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(min).max(max));
}

/**
 * Page sizes a cursor-paged list takes (REST `limit`, typed `page_size`), and the size of a page not asked for: the one
 * statement of the rule, which the REST schemas (`pageLimit`) and the typed lists (src/api/page-request.ts) judge by.
 */
export const PAGE_SIZE = { min: 1, max: 500, default: 50 } as const;

/** The REST `limit` of a cursor-paged list: decimal text of a page size (PAGE_SIZE), optional (default 50). */
export function pageLimit() {
  return queryInt(PAGE_SIZE.min, PAGE_SIZE.max).optional();
}

/** Query-string boolean (`true` / `false`). */
export const queryBool = () => z.enum(['true', 'false']).transform((v) => v === 'true');

/** Opaque pagination cursor. */
export const cursor = () => z.string().max(200);

/** Bounds of a free-form JSON object the API stores (booking `metadata`). */
export const FREE_FORM_LIMITS = { maxKeys: 50, maxKeyLength: 100, maxDepth: 8, maxBytes: 16_384 } as const;

/**
 * A stored free-form value as it may be answered: arrays and objects nested deeper than FREE_FORM_LIMITS.maxDepth
 * (only rows stored before that bound can be) are answered as null, so no stored row can break an answer or a list.
 */
export function boundedFreeForm(value: unknown, depth = 1): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > FREE_FORM_LIMITS.maxDepth) return null;
  if (Array.isArray(value)) return value.map((x) => boundedFreeForm(x, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, boundedFreeForm(x, depth + 1)]));
}

/**
 * A free-form JSON object the API stores as it is: at most 50 keys of at most 100 characters, arrays and objects
 * nested at most 8 levels (the object itself is the first), at most 16 KB as JSON (UTF-8).
 */
export function freeFormObject(what: string) {
  const { maxKeys, maxKeyLength, maxDepth, maxBytes } = FREE_FORM_LIMITS;
  return z
    .record(z.string().max(maxKeyLength), z.unknown())
    .superRefine((m, ctx) => {
      if (Object.keys(m).length > maxKeys)
        return ctx.addIssue({ code: 'custom', message: `must have at most ${maxKeys} keys` });
      // Depth first: the size is measured by serializing, which must not meet unbounded nesting.
      const unstorable = findUnstorableValue(m, { maxDepth });
      if (unstorable) return ctx.addIssue({ code: 'custom', message: unstorable.message });
      if (new TextEncoder().encode(JSON.stringify(m)).length > maxBytes)
        ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes (16 KB) as JSON` });
    })
    .meta({
      description: `${what} At most ${maxKeys} keys of at most ${maxKeyLength} characters; arrays and objects nested at most ${maxDepth} levels deep, counting this object; at most ${maxBytes} bytes (16 KB) as JSON in UTF-8; no string or key may contain U+0000 or an unpaired surrogate.`,
      maxProperties: maxKeys,
    });
}
