import type { HoldOptionRequest, HoldOptionResponse } from '../../gen/scheduling/v1/resolution_service.js';
import { HOLD_TTL_SECONDS, HoldBody } from '../../contract/schemas/hold.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import { optionalIdempotencyKey } from '../../application/idempotency.js';
import { withIdempotency } from '../../application/with-idempotency.js';
import { holdOption as runHold } from '../../application/booking/hold-flows.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems } from '../request-problems.js';
import { holdMessage } from '../messages/resolution-message.js';
import { typedAnswerOf } from './resolution-body.js';
import { holdPath } from './hold-path.js';

/**
 * What HoldOption uses: the resolution's records and actors, the hold ledger, the clock and the idempotency store (the
 * expiry timers are armed through the actor store).
 */
export type HoldOptionDeps = Pick<ResolutionDeps, 'records' | 'actors' | 'db' | 'clock' | 'idempotency'>;

/**
 * HoldOption (POST /api/v2/resolutions/:id/options/:optionId/hold): holds an option's slot for `ttl_seconds` (default
 * 120, at most 600), under an Idempotency-Key when one is given (its answer committed with the hold).
 */
export async function holdOption(
  deps: HoldOptionDeps,
  caller: Caller,
  request: HoldOptionRequest,
  call: TypedCall,
): Promise<HoldOptionResponse | TypedAnswer<HoldOptionResponse>> {
  const { id, optionId } = holdPath(request);
  const problems = new RequestProblems();
  const ttlSeconds = problems.check('ttlSeconds', HoldBody.shape.ttlSeconds, request.ttlSeconds);
  problems.throwIfAny();
  const ttl = ttlSeconds ?? HOLD_TTL_SECONDS.default;
  const key = optionalIdempotencyKey(call.headers);
  if (!key) return { hold: holdMessage(await runHold(deps, caller, id, optionId, ttl)) };
  const out = await withIdempotency(
    deps.idempotency,
    caller,
    `hold:${id}:${optionId}`,
    key,
    { ttlSeconds: request.ttlSeconds },
    (record) => runHold(deps, caller, id, optionId, ttl, record),
    { durable: true },
  );
  return typedAnswerOf(out, (h) => ({ hold: holdMessage(h) }));
}
