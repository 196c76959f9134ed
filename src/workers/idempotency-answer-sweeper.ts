import { IDEMPOTENCY_TTL_MS } from '../application/idempotency.js';
import type { Database } from '../persistence/database.js';
import { deleteIdempotencyAnswersBefore } from '../persistence/idempotency-answers.js';
import { createPollingWorker } from './polling-worker.js';
import type { Worker } from './worker.js';

/** Answers deleted by one statement: a short transaction however many rows are due. */
export const SWEEP_BATCH = 500;

/**
 * Deletes idempotent answers stored over 24 hours ago (CONTRACT part 4; readers already ignore them), every `pollMs`
 * (default one minute) in batches of SWEEP_BATCH, batch after batch while a full one was deleted. Every process runs
 * it; batches of two processes skip each other's rows.
 */
export function createIdempotencyAnswerSweeper(deps: { db: Database; clock: () => Date; pollMs?: number }): Worker {
  return createPollingWorker({
    pollMs: deps.pollMs ?? 60_000,
    async step() {
      const before = new Date(deps.clock().getTime() - IDEMPOTENCY_TTL_MS);
      return (await deleteIdempotencyAnswersBefore(deps.db, before, SWEEP_BATCH)) === SWEEP_BATCH;
    },
  });
}
