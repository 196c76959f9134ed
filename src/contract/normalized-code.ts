import { z } from 'zod';
import type { CodeNormalizer } from '../domain/normalize-codes.js';

/** A string normalized on input by a domain normalizer (CONTRACT part 3); invalid values are 400. */
export function normalizedCode(fn: CodeNormalizer, what: string) {
  return z
    .string()
    .max(200)
    .transform((s, ctx) => {
      const r = fn(s);
      if (!r.ok) {
        ctx.addIssue({ code: 'custom', message: `"${s.slice(0, 50)}" is not a valid ${what}: ${r.message}` });
        return z.NEVER;
      }
      return r.value;
    });
}
