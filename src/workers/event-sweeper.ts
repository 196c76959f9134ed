import { EVENT_RETENTION_MS } from '../domain/event-retention.js';
import type { Database } from '../persistence/database.js';
import { deleteEventsBefore } from '../persistence/event-repository.js';
import { createPollingWorker } from './polling-worker.js';
import type { Worker } from './worker.js';

/** Events deleted by one statement (with their deliveries and attempts): a short transaction however many are due. */
export const EVENT_SWEEP_BATCH = 500;

/**
 * Deletes events over 30 days old (CONTRACT part 8; the API already answers none of them), with their webhook
 * delivery records and attempts, every `pollMs` (default one minute) in batches of EVENT_SWEEP_BATCH, batch after
 * batch while a full one was deleted. Every process runs it; batches of two processes skip each other's rows.
 */
export function createEventSweeper(deps: { db: Database; clock: () => Date; pollMs?: number }): Worker {
  return createPollingWorker({
    pollMs: deps.pollMs ?? 60_000,
    async step() {
      const before = new Date(deps.clock().getTime() - EVENT_RETENTION_MS);
      return (await deleteEventsBefore(deps.db, before, EVENT_SWEEP_BATCH)) === EVENT_SWEEP_BATCH;
    },
  });
}
