import type { z } from 'zod';
import { validationError, type ErrorDetail } from '../errors/service-error.js';
import { issuesToDetails } from '../contract/parse-input.js';

/**
 * The problems found in a typed request, collected field by field in the request's order and thrown as one 400
 * VALIDATION_ERROR (`field`: the first, `details`: all), named as REST clients name the fields (the messages' JSON
 * names, a list's `limit`/`cursor`).
 */
export class RequestProblems {
  private readonly details: ErrorDetail[] = [];

  /**
   * Judges a value with the contract's rule of its field (the rule openapi.json states: lengths, ranges, formats) and
   * answers it when it passes; `undefined` is a field not given (REQUIRED where the rule needs one).
   */
  check<T>(field: string, rule: z.ZodType<T>, value: unknown): T | undefined {
    const r = rule.safeParse(value, { reportInput: true });
    if (r.success) return r.data;
    this.details.push(...issuesToDetails(r.error.issues, field));
    return undefined;
  }

  /** Adds a problem the caller found itself. */
  add(field: string, message: string, code: 'INVALID' | 'REQUIRED' | 'UNDECODABLE' = 'INVALID'): void {
    this.details.push({ field, code, message });
  }

  /** The fields named by the problems found so far, in order. */
  get fields(): readonly string[] {
    return this.details.map((d) => d.field);
  }

  /** Throws the problems found so far, if any. */
  throwIfAny(): void {
    if (this.details.length > 0) throw validationError(this.details);
  }
}

/** A text field without presence as its rule reads it: '' is a field left out. */
export function given(text: string | undefined): string | undefined {
  return text === '' ? undefined : text;
}

/** A resource id from the request's path, checked alone with its rule (`field`: `id`): its value, or the 400 of it. */
export function pathId(rule: z.ZodType<string>, id: string | undefined): string {
  const problems = new RequestProblems();
  const checked = problems.check('id', rule, given(id));
  problems.throwIfAny();
  return checked!;
}
