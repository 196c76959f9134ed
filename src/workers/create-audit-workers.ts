import type { AuditStream } from '../persistence/audit-stream.js';
import type { Database } from '../persistence/database.js';
import { createAuditDrain } from './audit-drain.js';
import { createAuditSequencer } from './audit-sequencer.js';
import type { Worker } from './worker.js';

/** The two audit workers of a process, and a way to wait until everything recorded so far is linked. */
export interface AuditWorkers {
  /** The stream drain and the chain sequencer, for the `workers` role to start. */
  workers: Worker[];
  /**
   * Resolves once every audit event recorded before the call (committed writes, header uses appended to the stream)
   * is in audit_events and linked into its chain; drives both steps itself, so it works in any role (tests, tools).
   */
  flush(opts?: { timeoutMs?: number }): Promise<void>;
}

/** Builds the drain of the audit stream and the sequencer of the audit chain. */
export function createAuditWorkers(deps: {
  db: Database;
  stream: AuditStream;
  log: (msg: string, extra?: Record<string, unknown>) => void;
}): AuditWorkers {
  const drain = createAuditDrain({ db: deps.db, stream: deps.stream, log: deps.log });
  const sequencer = createAuditSequencer({ db: deps.db, log: deps.log });
  return {
    workers: [drain, sequencer],
    async flush(opts = {}) {
      await drain.flush(opts);
      await sequencer.flush(opts);
    },
  };
}
