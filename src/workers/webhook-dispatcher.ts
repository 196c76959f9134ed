import type { Database } from '../persistence/database.js';
import { dispatchEvents } from '../persistence/webhook-delivery-queue.js';
import { createPollingWorker, type WakeableWorker } from './polling-worker.js';

/**
 * Polls the events outbox (every `pollMs`, default 200 ms) and turns undispatched events into webhook deliveries in
 * batches of `batchSize` (default 500), at once again while batches come back full; tells the sender (`onPending`)
 * when new deliveries are due, so it does not wait for its own poll. `wake` dispatches at once (events just committed
 * by a worker of this process, such as `waitlist.offered`).
 */
export function createWebhookDispatcher(deps: {
  db: Database;
  clock: () => Date;
  onPending?: () => void;
  pollMs?: number;
  batchSize?: number;
}): WakeableWorker {
  const batchSize = deps.batchSize ?? 500;
  return createPollingWorker({
    pollMs: deps.pollMs ?? 200,
    async step() {
      const r = await dispatchEvents(deps.db, deps.clock(), batchSize);
      if (r.pending > 0) deps.onPending?.();
      return r.events === batchSize;
    },
  });
}
