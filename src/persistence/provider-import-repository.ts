import type { Queryable } from './database.js';
import { providerImportMachine, type ProviderImportStatus } from '../../machines/provider-import-machine.js';
import { rowStatusAfter } from '../../machines/row-lifecycle.js';
import { keysetPage } from './keyset-page.js';

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
if (
  CLAIMED_STATUS === undefined ||
  rowStatusAfter(providerImportMachine, 'processing', { type: 'CLAIM' }) !== CLAIMED_STATUS
) {
  throw new Error('provider import machine: CLAIM must lead from validating and processing to one state');
}

/** Jobs abandoned by a crashed worker are claimed again after this long. */
export const IMPORT_LEASE_MS = 120_000;

/**
 * The bound of an import job's transaction (statement and idle-in-transaction timeouts, and the client's wait for each
 * answer): a job's, not a request's (5 s by default), which a job of 500 rows could pass on a loaded host while its
 * process does other work between two statements (a graph copy). Well inside IMPORT_LEASE_MS: a job cut by it fails an
 * attempt before another worker could claim it again.
 */
export const IMPORT_TRANSACTION_BOUND_MS = 60_000;

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

/** Reads one import job row by id (any organization; callers check tenancy). */
export async function findProviderImportRow(db: Queryable, id: string): Promise<Record<string, any> | undefined> {
  const r = await db.query('SELECT * FROM provider_imports WHERE id = $1', [id]);
  return r.rows[0];
}

/** Inserts an import job waiting for a worker, in the status given (the import machine's initial state). */
export async function insertProviderImport(
  tx: Queryable,
  j: {
    id: string;
    platformId: string;
    organizationId: string;
    status: ProviderImportStatus;
    mode: string;
    dryRun: boolean;
    deactivateMissing: boolean;
    payload: unknown;
    summary: unknown;
    keyMode: 'live' | 'test';
    actor: unknown;
    requestId: string | null;
    now: Date;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO provider_imports (id, platform_id, organization_id, status, mode, dry_run, deactivate_missing, payload, summary, key_mode, actor, request_id, created_at)
     VALUES ($1,$2,$3,$13,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
    [
      j.id,
      j.platformId,
      j.organizationId,
      j.mode,
      j.dryRun,
      j.deactivateMissing,
      JSON.stringify(j.payload),
      JSON.stringify(j.summary),
      j.keyMode,
      JSON.stringify(j.actor),
      j.requestId,
      j.now,
      j.status,
    ],
  );
}

/** Lists an organization's import jobs newest first (by id) below `before`, at most `limit` rows. */
export async function listProviderImportRows(
  db: Queryable,
  organizationId: string,
  page: { before?: string | undefined; limit: number },
): Promise<Record<string, any>[]> {
  const query = { where: ['organization_id = $1'], args: [organizationId] as unknown[] };
  const orderLimit = keysetPage(query, {
    columns: ['id'],
    order: 'desc',
    after: page.before ? [page.before] : undefined,
    limit: page.limit,
  });
  const r = await db.query(
    `SELECT * FROM provider_imports WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    query.args,
  );
  return r.rows;
}

/** Records how many rows of a running job are processed (committed on its own, so progress is visible). */
export async function writeProviderImportProgress(db: Queryable, id: string, processed: number): Promise<void> {
  await db.query('UPDATE provider_imports SET processed = $2 WHERE id = $1', [id, processed]);
}

/** Stores a finished job's outcome in the status given (the import machine's state after FINISH); answers the row. */
export async function finishProviderImport(
  tx: Queryable,
  id: string,
  o: {
    status: ProviderImportStatus | undefined;
    summary: unknown;
    errors: unknown;
    rows: unknown;
    processed: number;
    now: Date;
  },
): Promise<Record<string, any>> {
  const r = await tx.query(
    `UPDATE provider_imports SET status = $7, summary = $2, errors = $3, rows = $4, processed = $5, completed_at = $6 WHERE id = $1 RETURNING *`,
    [id, JSON.stringify(o.summary), JSON.stringify(o.errors), JSON.stringify(o.rows), o.processed, o.now, o.status],
  );
  return r.rows[0];
}
