import type { z } from 'zod';
import { validationError, type ErrorDetail } from '../errors/service-error.js';

/** Turns zod issues into the `details` array of a 400 (dotted field paths). */
export function issuesToDetails(issues: z.core.$ZodIssue[], prefix = ''): ErrorDetail[] {
  return issues.map((i) => {
    const path = i.path.map(String).join('.');
    const field = prefix ? (path ? `${prefix}.${path}` : prefix) : path || '(body)';
    const code = i.code === 'invalid_type' && i.input === undefined ? 'REQUIRED' : 'INVALID';
    const message = code === 'REQUIRED' ? 'is required' : i.message;
    return { field, code, message };
  });
}

/** Validates input against a schema, throwing 400 VALIDATION_ERROR with `field` and `details`. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  // reportInput: a missing field (REQUIRED) is told apart from one of the wrong type by the issue's input.
  const r = schema.safeParse(input, { reportInput: true });
  if (r.success) return r.data;
  throw validationError(issuesToDetails(r.error.issues, prefix));
}
