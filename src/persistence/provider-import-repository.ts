import type { Queryable } from './database.js';
import { providerImportMachine, type ProviderImportStatus } from '../../machines/provider-import-machine.js';
import { rowStatusAfter } from '../../machines/row-lifecycle.js';

/** Maps a provider_imports row to its answer shape. */
export function toProviderImport(row: Record<string, any>) {
  return {
    importId: row.id as string,
    status: row.status as 'validating' | 'processing' | 'completed' | 'failed',
    dryRun: row.dry_run as boolean,
    mode: row.mode as 'upsert' | 'create_only' | 'update_only',
    deactivateMissing: row.deactivate_missing as boolean,
    summary: row.summary,
    progress: { processed: row.processed as number, total: (row.payload as unknown[]).length },
    errors: row.errors,
    rows: row.rows,
    createdAt: (row.created_at as Date).toISOString(),
    completedAt: (row.completed_at as Date | null)?.toISOString() ?? null,
  };
}

/** An empty summary for `received` rows. */
export function emptyImportSummary(received: number) {
  return { received, created: 0, updated: 0, unchanged: 0, invalid: 0, deactivated: 0 };
}

/** What a claimed job is, decided by the import machine (from `validating`, and again from a stale `processing`). */
const CLAIMED_STATUS = rowStatusAfter<ProviderImportStatus>(providerImportMachine, 'validating', { type: 'CLAIM' });
if (CLAIMED_STATUS === undefined || rowStatusAfter(providerImportMachine, 'processing', { type: 'CLAIM' }) !== CLAIMED_STATUS) {
  throw new Error('provider import machine: CLAIM must lead from validating and processing to one state');
}

/** Jobs abandoned by a crashed worker are claimed again after this long. */
export const IMPORT_LEASE_MS = 120_000;

/**
 * Claims the oldest waiting job (or one whose worker died) for this worker. `FOR UPDATE SKIP LOCKED`
 * lets any number of workers in any number of processes claim concurrently without taking the same job.
 */
export async function claimProviderImport(db: Queryable, now: Date): Promise<Record<string, any> | undefined> {
  const r = await db.query(
    `UPDATE provider_imports SET status = $3, started_at = $1, attempts = attempts + 1, processed = 0
     WHERE id = (
       SELECT id FROM provider_imports
       WHERE status = 'validating' OR (status = 'processing' AND started_at < $2)
       ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
     RETURNING *`,
    [now, new Date(now.getTime() - IMPORT_LEASE_MS), CLAIMED_STATUS],
  );
  return r.rows[0];
}
