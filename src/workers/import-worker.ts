import type { Database } from '../persistence/database.js';
import { claimProviderImport } from '../persistence/provider-import-repository.js';
import { processProviderImport } from '../application/process-provider-import.js';
import type { Worker } from './worker.js';
import { createPollingWorker } from './polling-worker.js';
import { providerImportMachine, type ProviderImportStatus } from '../../machines/provider-import-machine.js';
import { rowStatusAfter } from '../../machines/row-lifecycle.js';

const MAX_ATTEMPTS = 3;

/**
 * Polls for import jobs and runs them one at a time per process; several processes share the queue
 * through `FOR UPDATE SKIP LOCKED`. A job failing MAX_ATTEMPTS times is marked `failed`.
 */
export function createImportWorker(deps: {
  db: Database;
  clock: () => Date;
  log: (msg: string, extra?: Record<string, unknown>) => void;
  pollMs?: number;
}): Worker {
  return createPollingWorker({
    pollMs: deps.pollMs ?? 250,
    async step() {
      const job = await claimProviderImport(deps.db, deps.clock());
      if (!job) return false;
      try {
        await processProviderImport(deps.db, job, deps.clock);
      } catch (err) {
        deps.log('import failed', { importId: job.id, attempt: job.attempts, error: String(err) });
        const status = rowStatusAfter<ProviderImportStatus>(providerImportMachine, job.status, {
          type: job.attempts >= MAX_ATTEMPTS ? 'FAIL' : 'RETRY',
        });
        await deps.db
          .query(
            `UPDATE provider_imports SET status = $2, completed_at = CASE WHEN $2 = 'failed' THEN now() ELSE NULL END WHERE id = $1`,
            [job.id, status],
          )
          .catch(() => undefined);
      }
      return true;
    },
  });
}
