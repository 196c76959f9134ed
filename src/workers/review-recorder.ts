import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../persistence/database.js';
import { upsertManualReview } from '../persistence/manual-review-repository.js';
import type { ReviewQueue } from '../persistence/review-queue.js';
import { createPollingWorker } from './polling-worker.js';
import type { Worker } from './worker.js';

/** The review recorder, with a way to wait for the sightings handed off so far. */
export interface ReviewRecorder extends Worker {
  /** Records until every sighting in the stream when called is in manual_review_entries (at most `timeoutMs`). */
  flush(opts?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Records the manual-review sightings resolutions hand off (CONTRACT part 7): each pass reads up to `batch` entries
 * through the consumer group, upserts each sighting's providers (opening new entries, reopening resolved ones,
 * advancing `lastSeenAt`) in stream order, and acknowledges them only after that commits. A crash in between leaves
 * them pending and they are recorded again (the upsert is idempotent); entries a dead process left pending are
 * claimed after `claimIdleMs`.
 */
export function createReviewRecorder(deps: {
  db: Database;
  queue: ReviewQueue;
  log: (msg: string, extra?: Record<string, unknown>) => void;
  pollMs?: number;
  batch?: number;
  claimIdleMs?: number;
  consumer?: string;
}): ReviewRecorder {
  const consumer = deps.consumer ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  // A sighting of a broad question names thousands of providers: a few per pass keep a pass's memory small.
  const batch = deps.batch ?? 20;
  let groupReady = false;
  let running: Promise<boolean> = Promise.resolve(false);
  const pass = async (): Promise<boolean> => {
    if (!groupReady) {
      await deps.queue.consumers.ensureGroup();
      groupReady = true;
    }
    const read = await deps.queue.read(consumer, batch, deps.claimIdleMs ?? 10_000);
    if (read.entryIds.length === 0) return false;
    for (const s of read.sightings)
      await upsertManualReview(deps.db, {
        organizationId: s.organizationId,
        platformId: s.platformId,
        seenAt: s.seenAt,
        rows: s.groups.flatMap((g) => g.providerIds.map((id) => ({ provider_id: id, reasons: g.reasons }))),
      });
    // Entries this code did not write cannot become review entries; kept, they would be re-read on every pass.
    for (const m of read.malformed)
      deps.log('review stream entry is not a sighting; dropped', { entryId: m.entryId, raw: JSON.stringify(m.raw) });
    await deps.queue.consumers.ack(read.entryIds);
    return read.entryIds.length === batch;
  };
  // One pass at a time per process, whether the poller or flush asked for it.
  const step = () => {
    const next = running.catch(() => false).then(pass);
    running = next;
    return next;
  };
  const worker = createPollingWorker({
    pollMs: deps.pollMs ?? 200,
    step: () =>
      step().catch((err) => {
        deps.log('review recorder failed', { error: String(err) });
        throw err;
      }),
  });
  return {
    ...worker,
    async flush(opts = {}) {
      const timeoutMs = opts.timeoutMs ?? 30_000;
      const target = await deps.queue.consumers.newestEntryId();
      if (target === undefined) return;
      const deadline = Date.now() + timeoutMs;
      while (await deps.queue.consumers.holdsEntriesThrough(target)) {
        if (Date.now() > deadline)
          throw new Error(`review stream entries up to ${target} were not recorded within ${timeoutMs} ms`);
        if (!(await step())) await sleep(20);
      }
    },
  };
}
