import type { z } from 'zod';
import { ServiceError, validationError, type ErrorDetail } from '../../errors/service-error.js';
import { issuesToDetails } from '../parse-input.js';
import type { RestForm } from '../rest-form.js';
import type { RestInput } from '../typed-message.js';
import { CreateResolutionV1Body, V1_CONSTRAINT_NAMES } from '../schemas/resolution.js';

/** The v1 constraint lists without a v1 name of their own. */
const SAME_NAME = ['ageGroupCodes', 'serviceRegionCodes'] as const;

const REST_CONSTRAINTS = (CreateResolutionV1Body.shape.constraints.unwrap() as z.ZodObject<Record<string, z.ZodType>>)
  .shape;

const nonEmpty = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0;

/**
 * The v1 constraints as CreateResolution's `constraints`: each list under its v2 name (`{anyOf}`), taken from the v2
 * name when given, else from the v1 name; an empty list is not given; `licenseRegionCodes`, which v1 ignores, is
 * left out. The v1 list that loses to its v2 name is not carried, so it is judged here, by its REST rule.
 */
function constraintsOf(lists: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (lists === undefined) return undefined;
  const out: Record<string, unknown> = {};
  const problems: ErrorDetail[] = [];
  for (const [v2, v1] of Object.entries(V1_CONSTRAINT_NAMES)) {
    const [given, other] = nonEmpty(lists[v2]) ? [lists[v2], lists[v1]] : [lists[v1], undefined];
    if (nonEmpty(given)) out[v2] = { anyOf: given };
    if (!nonEmpty(other)) continue;
    const r = REST_CONSTRAINTS[v1]!.safeParse(other, { reportInput: true });
    if (!r.success) problems.push(...issuesToDetails(r.error.issues, `constraints.${v1}`));
  }
  if (problems.length > 0) throw validationError(problems);
  for (const key of SAME_NAME) if (nonEmpty(lists[key])) out[key] = { anyOf: lists[key] };
  if (lists.acceptsNewClients !== undefined) out.acceptsNewClients = lists.acceptsNewClients;
  return out;
}

/** The name a v1 body gave the constraint list carried under a v2 name (`languageCodes`: it, or `languages`). */
function restNameOf(input: RestInput, v2: string): string {
  const constraints = (input.body as { constraints?: Record<string, unknown> } | undefined)?.constraints;
  const v1 = V1_CONSTRAINT_NAMES[v2 as keyof typeof V1_CONSTRAINT_NAMES];
  if (!v1) return v2;
  const value = constraints?.[v2];
  return typeof value === 'string' || nonEmpty(value) ? v2 : v1;
}

/** A field of CreateResolution named as the v1 body named it. */
function restField(field: string, input: RestInput): { field: string; list: boolean } {
  if (field === 'serviceId') return { field: 'service', list: false };
  const list = /^constraints\.(\w+)\.anyOf(\.|$)/.exec(field);
  if (list) return { field: `constraints.${restNameOf(input, list[1]!)}`, list: true };
  return { field, list: false };
}

/**
 * POST /api/v1/resolutions onto CreateResolution: `service` (an id or a slug) as `service_id` with `v1_rules`, each
 * v1 constraint (one code as text or a list, under its v1 or v2 name) as a v2 list, the rest as it is. Errors name the
 * v1 fields; a bad code in a v1 list is `Invalid input` of the list, as the v1 rule (one code or a list) says it.
 */
export const v1ResolutionForm: RestForm = {
  request(input, own) {
    const m = own(input);
    const constraints = constraintsOf(m.constraintLists as Record<string, unknown> | undefined);
    const message: Record<string, unknown> = { serviceId: m.service, v1Rules: true };
    if (constraints !== undefined) message.constraints = constraints;
    for (const key of ['preferences', 'dateRange', 'maxOptionsPerProvider'])
      if (m[key] !== undefined) message[key] = m[key];
    return message;
  },
  error(err, input) {
    if (err.code === 'VALIDATION_ERROR' && err.details) {
      const details: ErrorDetail[] = [];
      for (const d of err.details) {
        const named = restField(d.field, input);
        if (!named.list) details.push({ ...d, field: named.field });
        // The v1 rule of a list says one thing of it, whichever code is bad.
        else if (!details.some((x) => x.field === named.field))
          details.push({ field: named.field, code: 'INVALID', message: 'Invalid input' });
      }
      const renamed =
        details.length !== err.details.length || details.some((d, i) => d.field !== err.details![i]!.field);
      // An error whose fields v1 names alike keeps its own message (a header's: `Idempotency-Key must be ...`).
      return renamed ? validationError(details) : err;
    }
    if (err.field === undefined) return err;
    return new ServiceError(err.code, err.message, {
      field: restField(err.field, input).field,
      retryAfter: err.retryAfter,
      cause: err,
      ...(err.details ? { details: err.details } : {}),
    });
  },
};
