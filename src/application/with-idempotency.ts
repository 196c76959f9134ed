import type { Caller } from './caller.js';
import { payloadHash, type IdempotencyStore } from './idempotency.js';
import { answer, type OperationAnswer } from './operation.js';

/**
 * Runs a creating operation under an Idempotency-Key: the first request runs and its answer is kept;
 * a replay answers the same body with `Idempotent-Replayed: true`; a failed run frees the key.
 */
export async function withIdempotency(
  store: IdempotencyStore,
  caller: Caller,
  endpoint: string,
  key: string,
  payload: unknown,
  run: () => Promise<unknown>,
): Promise<OperationAnswer> {
  const hash = payloadHash(payload);
  const claim = await store.claim(caller.organizationId, endpoint, key, hash);
  if (claim.kind === 'replay') return answer(claim.response, { 'idempotent-replayed': 'true' });
  let result: unknown;
  try {
    result = await run();
  } catch (err) {
    await store.release(caller.organizationId, endpoint, key).catch(() => undefined);
    throw err;
  }
  // The work is done and committed: a Redis that cannot keep the answer now (down, or not answering in time) must not
  // turn it into a 503. A replay then finds the key in progress until it lapses, and a later one runs again.
  await store.complete(caller.organizationId, endpoint, key, hash, result).catch(() => undefined);
  return answer(result, {});
}
