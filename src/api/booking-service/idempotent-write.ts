import type { IdempotencyRecord } from '../../persistence/idempotency-answers.js';
import type { Caller } from '../../application/caller.js';
import { optionalIdempotencyKey, type IdempotencyStore } from '../../application/idempotency.js';
import { answer, type TypedCall, type TypedAnswer } from '../../application/operation.js';
import { withIdempotency } from '../../application/with-idempotency.js';

/**
 * Runs a v1 write under the call's optional `idempotency-key` (CONTRACT part 4): the write commits its answer (its
 * stored form, stored-answer.ts, which a replay answers again) with itself; `message` builds the response message of
 * it, a replay's with `Idempotent-Replayed: true`. `payload` is the request as REST spelled it, which a replay must
 * repeat (else 409 IDEMPOTENCY_KEY_REUSED).
 */
export async function idempotentWrite<View, Res>(
  deps: { idempotency: IdempotencyStore },
  caller: Caller,
  call: TypedCall,
  scope: { endpoint: string; payload: unknown },
  write: (record?: IdempotencyRecord) => Promise<View>,
  message: (view: View) => Res,
): Promise<TypedAnswer<Res>> {
  const key = optionalIdempotencyKey(call.headers);
  if (!key) return answer(message(await write()), {}) as TypedAnswer<Res>;
  const out = await withIdempotency(
    deps.idempotency,
    caller,
    scope.endpoint,
    key,
    scope.payload,
    (record) => write(record),
    {
      durable: true,
    },
  );
  return answer(message(out.result as View), out.headers) as TypedAnswer<Res>;
}
