import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CreateProviderImportBody,
  ListProviderImportsQuery,
  ProviderImportPath,
} from '../contract/schemas/provider-import.js';
import { newId } from '../persistence/new-id.js';
import {
  emptyImportSummary,
  findProviderImportRow,
  insertProviderImport,
  listProviderImportRows,
  toProviderImport,
} from '../persistence/provider-import-repository.js';
import type { OperationTable } from './operation.js';
import type { AppDeps } from './app-deps.js';
import { auditActor, type Caller } from './caller.js';
import { requirePlatformKey } from './authenticate.js';
import { recordAudit } from './record-audit.js';
import { providerImportMachine, type ProviderImportStatus } from '../../machines/provider-import-machine.js';
import { rowInitialStatus } from '../../machines/row-lifecycle.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** What a new import is: the import machine's initial state (`validating`). */
const IMPORT_INITIAL_STATUS = rowInitialStatus<ProviderImportStatus>(providerImportMachine) as 'validating';

/** Reads an import job of the caller's organization. */
async function importOfCaller(deps: AppDeps, caller: Caller, id: string) {
  const row = await findProviderImportRow(deps.db, id);
  if (!row) throw new ServiceError('IMPORT_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toProviderImport(row);
}

/** ImportService operations: asynchronous bulk provider imports (SPEC 4.3, CONTRACT part 3). */
export function createProviderImportOperations(deps: AppDeps): OperationTable {
  return {
    CreateProviderImport: {
      audit: { ...AUDIT_ACTIONS.providerImportCreate, kind: 'write' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const providers = (input.body as { providers?: unknown } | null)?.providers;
        if (Array.isArray(providers) && providers.length > 500)
          throw new ServiceError('TOO_MANY_PROVIDERS', `At most 500 providers per import; got ${providers.length}.`, {
            field: 'providers',
          });
        const body = parseInput(CreateProviderImportBody, input.body);
        const now = deps.clock();
        const id = newId('imp', now.getTime());
        const mode = body.mode ?? 'upsert';
        await deps.db.transaction(async (tx) => {
          await insertProviderImport(tx, {
            id,
            platformId: caller.platformId,
            organizationId: caller.organizationId,
            status: IMPORT_INITIAL_STATUS,
            mode,
            dryRun: body.dryRun ?? false,
            deactivateMissing: body.deactivateMissing ?? false,
            payload: body.providers,
            summary: emptyImportSummary(body.providers.length),
            keyMode: caller.mode,
            actor: auditActor(caller),
            requestId: caller.requestId,
            now,
          });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.providerImportCreate,
            resourceId: id,
            after: {
              mode,
              dryRun: body.dryRun ?? false,
              deactivateMissing: body.deactivateMissing ?? false,
              received: body.providers.length,
            },
          });
        });
        return { importId: id, status: IMPORT_INITIAL_STATUS, dryRun: body.dryRun ?? false, mode };
      },
    },
    GetProviderImport: {
      audit: { ...AUDIT_ACTIONS.providerImportRead, kind: 'read' },
      async handler(caller, input) {
        const { importId } = parseInput(ProviderImportPath, input.params);
        return importOfCaller(deps, caller, importId);
      },
    },
    ListProviderImports: {
      audit: { ...AUDIT_ACTIONS.providerImportList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListProviderImportsQuery, input.query);
        if (q.importId) return importOfCaller(deps, caller, q.importId);
        const limit = q.limit ?? 50;
        const before = decodeCursor(q.cursor);
        const rows = await listProviderImportRows(deps.db, caller.organizationId, { before, limit: limit + 1 });
        return page(rows.map(toProviderImport), limit, (i) => i.importId);
      },
    },
  };
}
