import type { z } from 'zod';
import { TieBreaker as TieBreakerMessage, type WeightsInput } from '../../gen/scheduling/v1/resources.js';
import { parseInput } from '../../contract/parse-input.js';
import { validatePolicyInput } from '../../domain/ranking/validate-policy-input.js';
import { WEIGHT_KEYS, type TieBreaker } from '../../domain/ranking/ranking-policy.js';
import { validationError, type ErrorDetail } from '../../errors/service-error.js';
import { TIE_BREAKER_MESSAGE } from '../messages/ranking-policy-message.js';

const TIE_BREAKER_OF = new Map<TieBreakerMessage, TieBreaker>(
  Object.entries(TIE_BREAKER_MESSAGE).map(([rest, message]) => [message, rest as TieBreaker]),
);

/** The weights a request sets, by REST key (those left unset left out). */
export function weightsGiven(weights: WeightsInput): Record<string, unknown> {
  return Object.fromEntries(
    WEIGHT_KEYS.filter((k) => weights[k] !== undefined && weights[k] !== null).map((k) => [k, weights[k]]),
  );
}

/** The tie-breakers a request lists, by REST value; one it does not name (UNSPECIFIED) is judged as not one of them. */
export function tieBreakersGiven(order: TieBreakerMessage[]): unknown[] {
  return order.map((t) => TIE_BREAKER_OF.get(t) ?? null);
}

/**
 * Judges the policy fields of a create or update request, in the REST spelling (`name`, `weights.<key>`,
 * `tieBreakers.<i>`), with the policy rules (which name hard-constraint weight keys, duplicates and negative weights
 * precisely), then with the contract's rule of the body (`schema`); `required` adds `name` is required when left out.
 * `unset` are the fields an update names without a value, refused when the rules found nothing else. Answers the body.
 */
export function judgePolicyInput<S extends z.ZodType>(
  schema: S,
  body: Record<string, unknown>,
  opts: { required: boolean; unset?: ErrorDetail[] },
): z.output<S> {
  const problems = validatePolicyInput(body, { partial: true });
  if (opts.required && body.name === undefined)
    problems.unshift({ field: 'name', code: 'VALIDATION_ERROR', message: 'is required' });
  const details: ErrorDetail[] = problems.map((p) => ({
    field: p.field,
    code: p.message === 'is required' ? 'REQUIRED' : 'INVALID',
    message: p.message,
  }));
  if (details.length === 0 && opts.unset) details.push(...opts.unset);
  if (details.length > 0) throw validationError(details);
  return parseInput(schema, body);
}
