import { linkAuditChain, waitForAuditLinks } from '../persistence/audit-chain.js';
import type { Database } from '../persistence/database.js';
import type { Worker } from './worker.js';
import { createPollingWorker } from './polling-worker.js';

/** The audit sequencer, with a way to wait for the events committed so far to be linked. */
export interface AuditSequencer extends Worker {
  /** Resolves once every audit event committed before the call is linked into its chain (at most `timeoutMs`). */
  flush(opts?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Links committed audit events into their organizations' hash chains every `intervalMs`, a batch per pass and
 * passes back to back while a backlog lasts (linkAuditChain). Any number of processes may run one: a try-lock
 * lets one pass run at a time and the others skip their turn.
 */
export function createAuditSequencer(deps: {
  db: Database;
  log: (msg: string, extra?: Record<string, unknown>) => void;
  intervalMs?: number;
  batch?: number;
}): AuditSequencer {
  const worker = createPollingWorker({
    pollMs: deps.intervalMs ?? 200,
    async step() {
      try {
        const pass = await linkAuditChain(deps.db, { batch: deps.batch });
        return pass.locked && !pass.caughtUp;
      } catch (err) {
        deps.log('audit sequencer failed', { error: String(err) });
        throw err;
      }
    },
  });
  return {
    ...worker,
    flush: (opts = {}) => waitForAuditLinks(deps.db, { batch: deps.batch, timeoutMs: opts.timeoutMs }),
  };
}
