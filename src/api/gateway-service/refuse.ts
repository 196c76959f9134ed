import { z } from 'zod';
import { ServiceError } from '../../errors/service-error.js';
import type { RefuseRequest, RefuseResponse } from '../../gen/scheduling/v1/gateway_service.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';

/**
 * Refusals the REST gateway makes before any operation (CONTRACT part 1); VALIDATION_ERROR for what it refuses of a
 * request it cannot read (a body nested past the parser's bound, a body cut short, no Host).
 */
export const GATEWAY_REFUSALS = ['ROUTE_NOT_FOUND', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'VALIDATION_ERROR'] as const;

/** The rule of each RefuseRequest field: the refusal, its message as the gateway phrased it, the field it names. */
const RULES = {
  code: z.enum(GATEWAY_REFUSALS),
  message: z.string().max(1000),
  field: z.string().max(200),
};

/** What Refuse uses: nothing (the server authenticated and counted the call before it runs). */
export type RefuseDeps = Record<never, never>;

/**
 * Refuse: runs after the server authenticated the caller and counted the request against its key, like any call, and
 * then fails with the gateway's refusal (`message` and `field` unset: ''). So a refused request with a valid key is
 * counted and answered with the RateLimit state, and one made with Service-Organization-Id is audited
 * (`request.refuse`), with no rule of either kind in the gateway. It stores nothing: its message may quote a
 * malformed body as it came, so no unstorable-input check precedes it.
 */
export async function refuse(_deps: RefuseDeps, _caller: Caller, request: RefuseRequest): Promise<RefuseResponse> {
  const problems = new RequestProblems();
  const code = problems.check('code', RULES.code, request.code);
  const message = problems.check('message', RULES.message, request.message ?? '');
  const field = problems.check('field', RULES.field, request.field ?? '');
  problems.throwIfAny();
  throw new ServiceError(code!, message || undefined, { field: field || undefined });
}
