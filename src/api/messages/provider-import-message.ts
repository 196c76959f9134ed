import type { toProviderImport } from '../../persistence/provider-import-repository.js';
import {
  ImportMode,
  ImportRowOutcome_Outcome,
  ProviderImport_Status,
  type ImportRowError,
  type ImportRowOutcome,
  type ImportSummary,
  type ProviderImport,
  type ProviderImportAccepted,
} from '../../gen/scheduling/v1/resources.js';

/** An import job as read from its row (toProviderImport). */
export type ProviderImportView = ReturnType<typeof toProviderImport>;
type Mode = ProviderImportView['mode'];

/** An import mode as the typed API names it. */
export const IMPORT_MODE_VIEW: Record<Mode, ImportMode> = {
  upsert: ImportMode.IMPORT_MODE_UPSERT,
  create_only: ImportMode.IMPORT_MODE_CREATE_ONLY,
  update_only: ImportMode.IMPORT_MODE_UPDATE_ONLY,
};

const STATUS_VIEW: Record<ProviderImportView['status'], ProviderImport_Status> = {
  validating: ProviderImport_Status.STATUS_VALIDATING,
  processing: ProviderImport_Status.STATUS_PROCESSING,
  completed: ProviderImport_Status.STATUS_COMPLETED,
  failed: ProviderImport_Status.STATUS_FAILED,
};

const OUTCOME_VIEW: Record<string, ImportRowOutcome_Outcome> = {
  created: ImportRowOutcome_Outcome.OUTCOME_CREATED,
  updated: ImportRowOutcome_Outcome.OUTCOME_UPDATED,
  unchanged: ImportRowOutcome_Outcome.OUTCOME_UNCHANGED,
  invalid: ImportRowOutcome_Outcome.OUTCOME_INVALID,
  deactivated: ImportRowOutcome_Outcome.OUTCOME_DEACTIVATED,
};

type StoredError = { row: number; externalId: string | null; field: string; code: string; message: string };
type StoredOutcome = { row: number | null; externalId: string | null; providerId: string | null; outcome: string };
type StoredSummary = Record<'received' | 'created' | 'updated' | 'unchanged' | 'invalid' | 'deactivated', number>;

function summaryMessage(s: StoredSummary): ImportSummary {
  return {
    received: s.received,
    created: s.created,
    updated: s.updated,
    unchanged: s.unchanged,
    invalid: s.invalid,
    deactivated: s.deactivated,
  };
}

function rowErrorMessage(e: StoredError): ImportRowError {
  return {
    row: e.row,
    externalId: e.externalId ?? undefined,
    field: e.field,
    code: e.code,
    message: e.message,
  };
}

function rowOutcomeMessage(r: StoredOutcome): ImportRowOutcome {
  return {
    row: r.row ?? undefined,
    externalId: r.externalId ?? undefined,
    providerId: r.providerId ?? undefined,
    outcome: OUTCOME_VIEW[r.outcome] ?? ImportRowOutcome_Outcome.UNRECOGNIZED,
  };
}

/** The `ProviderImport` message of an import job: status, progress, summary, per-row errors and outcomes. */
export function providerImportMessage(i: ProviderImportView): ProviderImport {
  return {
    importId: i.importId,
    status: STATUS_VIEW[i.status],
    dryRun: i.dryRun,
    importMode: IMPORT_MODE_VIEW[i.mode],
    deactivateMissing: i.deactivateMissing,
    summary: summaryMessage(i.summary as StoredSummary),
    progress: { processed: i.progress.processed, total: i.progress.total },
    errors: (i.errors as StoredError[]).map(rowErrorMessage),
    rows: (i.rows as StoredOutcome[]).map(rowOutcomeMessage),
    createdAt: new Date(i.createdAt),
    completedAt: i.completedAt === null ? undefined : new Date(i.completedAt),
  };
}

/** The `ProviderImportAccepted` message of a queued import (the 202 answer). */
export function providerImportAcceptedMessage(a: {
  importId: string;
  status: 'validating';
  dryRun: boolean;
  mode: Mode;
}): ProviderImportAccepted {
  return { importId: a.importId, status: a.status, dryRun: a.dryRun, importMode: IMPORT_MODE_VIEW[a.mode] };
}
