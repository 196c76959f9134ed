import type { IdempotencyRecord } from '../persistence/idempotency-answers.js';
import type { Caller } from './caller.js';
import { payloadHash, type IdempotencyStore } from './idempotency.js';
import { answer, type OperationAnswer } from './operation.js';

/**
 * Runs a creating operation under an Idempotency-Key: the first request runs and its answer is kept;
 * a replay answers the same body with `Idempotent-Replayed: true`; a failed run frees the key.
 * `durable`: `run` commits its answer with its write (answerInsertSql or insertIdempotencyAnswer, with the record it
 * is given; the table's key makes a second answer for one key undo its write) and resolves to that same answer. A
 * replay Redis cannot answer (it lost the answer, or the process died between COMMIT and its Redis write) runs again
 * and cannot write again: the slot, the resolution, the hold or the answer's own key refuses it, and the answer
 * committed in PostgreSQL is the replay (or IDEMPOTENCY_KEY_REUSED for another payload). A first request thus pays no
 * PostgreSQL lookup.
 */
export async function withIdempotency(
  store: IdempotencyStore,
  caller: Caller,
  endpoint: string,
  key: string,
  payload: unknown,
  run: (record: IdempotencyRecord) => Promise<unknown>,
  opts: { durable?: boolean } = {},
): Promise<OperationAnswer> {
  const hash = payloadHash(payload);
  const claim = await store.claim(caller.organizationId, endpoint, key, hash);
  if (claim.kind === 'replay') return answer(claim.response, { 'idempotent-replayed': 'true' });
  const { lease } = claim;
  let result: unknown;
  try {
    result = await run(lease.record);
  } catch (err) {
    // The write may have been committed already, by this key's first request or by a twin that ran while Redis had
    // lost this key's marker: its committed answer is this request's replay.
    const committed = opts.durable ? await store.committed(lease.record).catch(() => undefined) : undefined;
    if (committed) return answer(await store.settle(lease, committed), { 'idempotent-replayed': 'true' });
    await lease.release().catch(() => undefined);
    throw err;
  }
  // The work is done and committed: a Redis that cannot keep the answer now (down, or not answering in time) must not
  // turn it into a 503. A replay then finds the key in progress until its lease lapses, and then (durable) the answer
  // in PostgreSQL, or (not durable) runs again.
  await lease.complete(result).catch(() => undefined);
  return answer(result, {});
}
