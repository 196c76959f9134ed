import { CreateProviderBody, UpdateProviderBody } from '../contract/schemas/provider.js';
import { issuesToDetails } from '../contract/parse-input.js';
import { appendAudit } from '../persistence/audit-log.js';
import type { Database, Queryable } from '../persistence/database.js';
import { storeEvent } from '../persistence/event-outbox.js';
import { outboxEvent, providerImportCompletedData } from './event-data.js';
import {
  emptyImportSummary,
  finishProviderImport,
  IMPORT_TRANSACTION_BOUND_MS,
  toProviderImport,
  writeProviderImportProgress,
} from '../persistence/provider-import-repository.js';
import { lockImportProviderRows, toProviderView, type ProviderView } from '../persistence/provider-repository.js';
import { newProviderState, patchProviderState } from './provider-changes.js';
import { createProviderRecord, updateProviderRecord, type WriteContext } from './provider-writer.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import { providerImportMachine, type ProviderImportStatus } from '../../machines/provider-import-machine.js';
import { rowStatusAfter } from '../../machines/row-lifecycle.js';
import { AUDIT_ACTIONS, type AuditAction } from './audit/audit-actions.js';

type RowError = { row: number; externalId: string | null; field: string; code: string; message: string };
type RowOutcome = {
  row: number | null;
  externalId: string | null;
  providerId: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'invalid' | 'deactivated';
};

/** Rolls back a dry run's transaction while keeping its computed results. */
class DryRunRollback extends Error {}

const PROGRESS_EVERY = 50;

/**
 * Runs one claimed import job: validates each row, then creates, updates or skips it per the mode, and
 * deactivates missing providers when asked — all in one transaction, so a crash leaves nothing half done
 * (the job is claimed again). A dry run computes the same outcome and rolls back. Progress is committed
 * separately every 50 rows so it is visible while the job runs.
 */
export async function processProviderImport(db: Database, job: Record<string, any>, clock: () => Date): Promise<void> {
  const payload = job.payload as unknown[];
  const mode = job.mode as 'upsert' | 'create_only' | 'update_only';
  let summary = emptyImportSummary(payload.length);
  let errors: RowError[] = [];
  let rows: RowOutcome[] = [];
  const auditCtx = {
    platformId: job.platform_id as string,
    organizationId: job.organization_id as string,
    requestId: job.request_id as string,
  };
  const externalIdOf = (raw: unknown) =>
    raw && typeof raw === 'object' && typeof (raw as { externalId?: unknown }).externalId === 'string'
      ? (raw as { externalId: string }).externalId
      : null;
  const payloadExternalIds = [...new Set(payload.map(externalIdOf).filter((x): x is string => x !== null))];
  const work = async (tx: Queryable) => {
    // Database.transaction re-runs this after a deadlock: every run starts from an empty outcome.
    summary = emptyImportSummary(payload.length);
    errors = [];
    rows = [];
    const ctx: WriteContext = {
      platformId: job.platform_id,
      organizationId: job.organization_id,
      mode: job.key_mode,
      now: clock(),
      deferredGraphChanges: { count: 0 },
    };
    // The rows the job reads, locked (concurrent edits of them wait, and it waits for theirs): its own externalIds', and
    // with deactivate_missing every other provider deactivating would change. The organization's other rows stay
    // unread and unlocked.
    const existing = new Map<string, ProviderView>();
    for (const row of await lockImportProviderRows(
      tx,
      ctx.organizationId,
      payloadExternalIds,
      job.deactivate_missing === true,
    )) {
      const v = toProviderView(row);
      existing.set(v.externalId, v);
    }
    const seen = new Set<string>();
    // Audit events are appended after all rows: the organization's audit-chain lock is then held only for the
    // last moments of the job instead of blocking every other write of the organization for its whole length.
    const pendingAudit: { audited: AuditAction; resourceId: string; before: unknown; after: unknown }[] = [];
    const audit = async (audited: AuditAction, resourceId: string, before: unknown, after: unknown) => {
      pendingAudit.push({ audited, resourceId, before, after });
    };
    for (let i = 0; i < payload.length; i++) {
      const raw = payload[i];
      const externalId = externalIdOf(raw);
      const invalid = (field: string, code: string, message: string) => {
        errors.push({ row: i, externalId, field, code, message });
        rows.push({ row: i, externalId, providerId: null, outcome: 'invalid' });
        summary.invalid++;
      };
      if (externalId !== null && seen.has(externalId)) {
        invalid('externalId', 'DUPLICATE_EXTERNAL_ID', 'appears earlier in this batch');
        continue;
      }
      const cur = externalId !== null ? existing.get(externalId) : undefined;
      const parsed = cur
        ? UpdateProviderBody.required({ externalId: true }).safeParse(raw, { reportInput: true })
        : CreateProviderBody.safeParse(raw, { reportInput: true });
      if (!parsed.success) {
        const d = issuesToDetails(parsed.error.issues)[0]!;
        invalid(d.field, 'VALIDATION_ERROR', d.message);
        continue;
      }
      seen.add(parsed.data.externalId!);
      if (cur) {
        if (mode === 'create_only') {
          rows.push({ row: i, externalId, providerId: cur.id, outcome: 'unchanged' });
          summary.unchanged++;
          continue;
        }
        const { view, changed } = await updateProviderRecord(tx, { ...ctx }, cur, patchProviderState(cur, parsed.data));
        if (changed) {
          await audit(AUDIT_ACTIONS.providerUpdateByImport, view.id, cur, view);
          summary.updated++;
        } else summary.unchanged++;
        rows.push({ row: i, externalId, providerId: view.id, outcome: changed ? 'updated' : 'unchanged' });
      } else {
        if (mode === 'update_only') {
          rows.push({ row: i, externalId, providerId: null, outcome: 'unchanged' });
          summary.unchanged++;
          continue;
        }
        const view = await createProviderRecord(tx, ctx, newProviderState(CreateProviderBody.parse(raw)));
        if (!view) {
          invalid('externalId', 'DUPLICATE_EXTERNAL_ID', 'already exists');
          continue;
        }
        existing.set(view.externalId, view);
        await audit(AUDIT_ACTIONS.providerCreateByImport, view.id, null, view);

        summary.created++;
        rows.push({ row: i, externalId, providerId: view.id, outcome: 'created' });
      }
      if ((i + 1) % PROGRESS_EVERY === 0) await writeProviderImportProgress(db, job.id, i + 1);
    }
    if (job.deactivate_missing) {
      for (const cur of existing.values()) {
        if (seen.has(cur.externalId) || (cur.status === 'inactive' && !cur.searchable)) continue;
        const { view, changed } = await updateProviderRecord(tx, ctx, cur, {
          externalId: cur.externalId,
          status: 'inactive',
          searchable: false,
          doc: cur,
        });
        if (!changed) continue;
        await audit(AUDIT_ACTIONS.providerDeactivateByImport, view.id, cur, view);
        summary.deactivated++;
        rows.push({ row: null, externalId: cur.externalId, providerId: cur.id, outcome: 'deactivated' });
      }
    }
    if (job.dry_run) throw new DryRunRollback();
    if (ctx.deferredGraphChanges!.count > 0)
      await bumpGraphVersion(tx, ctx.organizationId, ctx.deferredGraphChanges!.count);
    for (const a of pendingAudit) {
      await appendAudit(tx, {
        platformId: auditCtx.platformId,
        organizationId: auditCtx.organizationId,
        actor: { type: 'system' },
        ...a.audited,
        resourceId: a.resourceId,
        requestId: auditCtx.requestId,
        before: a.before,
        after: a.after,
        timestamp: ctx.now,
      });
    }
    await finish(tx);
  };
  const finish = async (tx: Queryable) => {
    const now = clock();
    const finished = await finishProviderImport(tx, job.id, {
      status: rowStatusAfter<ProviderImportStatus>(providerImportMachine, job.status, { type: 'FINISH' }),
      summary,
      errors,
      rows,
      processed: payload.length,
      now,
    });
    await storeEvent(
      tx,
      outboxEvent('provider_import.completed', providerImportCompletedData(job.id, summary), {
        platformId: job.platform_id,
        organizationId: job.organization_id,
        mode: job.key_mode,
        createdAt: now,
      }),
    );
    await appendAudit(tx, {
      ...auditCtx,
      actor: { type: 'system' },
      ...AUDIT_ACTIONS.providerImportComplete,
      resourceId: job.id,
      before: null,
      after: toProviderImport(finished).summary,
      timestamp: now,
    });
  };
  // A job's bound, not a request's: see IMPORT_TRANSACTION_BOUND_MS.
  const bound = { boundMs: IMPORT_TRANSACTION_BOUND_MS };
  try {
    await db.transaction(work, bound);
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
    await db.transaction(finish, bound);
  }
}
