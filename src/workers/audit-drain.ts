import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertAuditEvents } from '../persistence/audit-log.js';
import type { AuditStream } from '../persistence/audit-stream.js';
import type { Database } from '../persistence/database.js';
import type { Worker } from './worker.js';
import { createPollingWorker } from './polling-worker.js';

/** The drain worker, with a way to wait for the entries appended so far. */
export interface AuditDrain extends Worker {
  /** Drains until every entry in the stream when called has been written to audit_events (at most `timeoutMs`). */
  flush(opts?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Moves audit events buffered in the Redis stream into audit_events: each pass reads up to `batch` entries through
 * the consumer group, writes them in one multi-row INSERT, and acknowledges them only after that commits. A crash
 * in between leaves them pending, and they are written again (a no-op: ids are fixed before the entry is appended);
 * entries a dead process left pending are claimed after `claimIdleMs` (a live consumer re-reads its own pending
 * entries on every pass, so they never look idle that long).
 */
export function createAuditDrain(deps: {
  db: Database;
  stream: AuditStream;
  log: (msg: string, extra?: Record<string, unknown>) => void;
  pollMs?: number;
  batch?: number;
  claimIdleMs?: number;
  consumer?: string;
}): AuditDrain {
  const consumer = deps.consumer ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const batch = deps.batch ?? 500;
  let groupReady = false;
  let running: Promise<boolean> = Promise.resolve(false);
  const pass = async (): Promise<boolean> => {
    if (!groupReady) {
      await deps.stream.ensureGroup();
      groupReady = true;
    }
    const read = await deps.stream.read(consumer, batch, deps.claimIdleMs ?? 10_000);
    if (read.entryIds.length === 0) return false;
    await insertAuditEvents(deps.db, read.events);
    // Entries this code did not write cannot become audit events; kept, they would be re-read on every pass.
    for (const m of read.malformed)
      deps.log('audit stream entry is not an audit event; dropped', { entryId: m.entryId, raw: JSON.stringify(m.raw) });
    await deps.stream.ack(read.entryIds);
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
        deps.log('audit drain failed', { error: String(err) });
        throw err;
      }),
  });
  return {
    ...worker,
    async flush(opts = {}) {
      const target = await deps.stream.newestEntryId();
      if (target === undefined) return;
      const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
      while (await deps.stream.holdsEntriesThrough(target)) {
        if (Date.now() > deadline)
          throw new Error(
            `audit stream entries up to ${target} were not drained within ${opts.timeoutMs ?? 30_000} ms`,
          );
        if (!(await step())) await sleep(20);
      }
    },
  };
}
