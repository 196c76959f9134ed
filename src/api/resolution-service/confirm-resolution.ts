import type {
  ConfirmResolutionRequest,
  ConfirmResolutionResponse,
} from '../../gen/scheduling/v1/resolution_service.js';
import { ConfirmBody } from '../../contract/schemas/hold.js';
import { ResolutionPath } from '../../contract/schemas/resolution.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import { requireIdempotencyKey } from '../../application/idempotency.js';
import { withIdempotency } from '../../application/with-idempotency.js';
import { confirmResolution as runConfirm, type ConfirmInput } from '../../application/booking/confirm-resolution.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { RequestProblems, given, pathId } from '../request-problems.js';
import { bookingV2MessageOfAnswer } from '../messages/resolution-message.js';
import { typedAnswerOf } from './resolution-body.js';

/**
 * What ConfirmResolution uses: the resolution's records and actors, the ledger (holds, bookings), the clock and the
 * idempotency store.
 */
export type ConfirmResolutionDeps = Pick<ResolutionDeps, 'records' | 'actors' | 'db' | 'clock' | 'idempotency'>;

const RULES = ConfirmBody.shape;

/**
 * ConfirmResolution (POST /api/v2/resolutions/:id/confirm): books an option of a resolution (with its hold, if any)
 * under a required Idempotency-Key, whose answer is committed with the booking.
 */
export async function confirmResolution(
  deps: ConfirmResolutionDeps,
  caller: Caller,
  request: ConfirmResolutionRequest,
  call: TypedCall,
): Promise<TypedAnswer<ConfirmResolutionResponse>> {
  const key = requireIdempotencyKey(call.headers);
  const id = pathId(ResolutionPath.shape.id, request.id);
  const c = request.customer;
  // The body as REST spelled it: judged member by member with the contract's rules, and hashed for the key.
  const body = {
    optionId: given(request.optionId),
    holdId: request.holdId,
    customer: c && { name: given(c.name), email: given(c.email), lastname: c.lastname, timezone: c.timezone },
    metadata: request.metadata,
  };
  const problems = new RequestProblems();
  const input = {
    optionId: problems.check('optionId', RULES.optionId, body.optionId),
    holdId: problems.check('holdId', RULES.holdId, body.holdId),
    customer: problems.check('customer', RULES.customer, body.customer),
    metadata: problems.check('metadata', RULES.metadata, body.metadata),
  };
  problems.throwIfAny();
  const out = await withIdempotency(
    deps.idempotency,
    caller,
    `confirm:${id}`,
    key,
    body,
    (record) => runConfirm(deps, caller, id, input as ConfirmInput, record),
    { durable: true },
  );
  return typedAnswerOf(out, (b) => ({ booking: bookingV2MessageOfAnswer(b) }));
}
