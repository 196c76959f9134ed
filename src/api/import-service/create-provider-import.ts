import { ServiceError } from '../../errors/service-error.js';
import type {
  CreateProviderImportRequest,
  CreateProviderImportResponse,
} from '../../gen/scheduling/v1/import_service.js';
import { ImportMode } from '../../gen/scheduling/v1/resources.js';
import { CreateProviderImportBody, PROVIDERS_PER_IMPORT } from '../../contract/schemas/provider-import.js';
import type { Database } from '../../persistence/database.js';
import { newId } from '../../persistence/new-id.js';
import { emptyImportSummary, insertProviderImport } from '../../persistence/provider-import-repository.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import { auditActor, type Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { providerImportMachine, type ProviderImportStatus } from '../../../machines/provider-import-machine.js';
import { rowInitialStatus } from '../../../machines/row-lifecycle.js';
import { RequestProblems } from '../request-problems.js';
import { providerImportAcceptedMessage } from '../messages/provider-import-message.js';

/** What a new import is: the import machine's initial state (`validating`). */
const IMPORT_INITIAL_STATUS = rowInitialStatus<ProviderImportStatus>(providerImportMachine) as 'validating';

const MODE_OF: Partial<Record<ImportMode, string>> = {
  [ImportMode.IMPORT_MODE_UPSERT]: 'upsert',
  [ImportMode.IMPORT_MODE_CREATE_ONLY]: 'create_only',
  [ImportMode.IMPORT_MODE_UPDATE_ONLY]: 'update_only',
};

/** What CreateProviderImport uses. */
export interface CreateProviderImportDeps {
  db: Database;
  clock: () => Date;
}

/**
 * CreateProviderImport (platform key): queues an import job of up to 500 rows and answers at once (REST 202). The
 * rows are free-form values here (repeated google.protobuf.Value): each is judged with the contract's row rule when
 * the job runs (process-provider-import.ts), a bad one listed in the job's `errors`, so no row refuses the import.
 * Over 500 rows is 400 TOO_MANY_PROVIDERS. Audited as `provider_import.create` in the same transaction.
 */
export async function createProviderImport(
  deps: CreateProviderImportDeps,
  caller: Caller,
  request: CreateProviderImportRequest,
): Promise<CreateProviderImportResponse> {
  requirePlatformKey(caller);
  const providers = request.providerRowValues ?? [];
  if (providers.length > PROVIDERS_PER_IMPORT)
    throw new ServiceError(
      'TOO_MANY_PROVIDERS',
      `At most ${PROVIDERS_PER_IMPORT} providers per import; got ${providers.length}.`,
      { field: 'providers' },
    );
  const problems = new RequestProblems();
  const given = request.importMode;
  const modeValue =
    given === undefined || given === ImportMode.IMPORT_MODE_UNSPECIFIED ? undefined : (MODE_OF[given] ?? given);
  const mode = problems.check('mode', CreateProviderImportBody.shape.mode, modeValue) ?? 'upsert';
  problems.throwIfAny();
  const dryRun = request.dryRun ?? false;
  const deactivateMissing = request.deactivateMissing ?? false;
  const now = deps.clock();
  const id = newId('imp', now.getTime());
  await deps.db.transaction(async (tx) => {
    await insertProviderImport(tx, {
      id,
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      status: IMPORT_INITIAL_STATUS,
      mode,
      dryRun,
      deactivateMissing,
      payload: providers,
      summary: emptyImportSummary(providers.length),
      keyMode: caller.mode,
      actor: auditActor(caller),
      requestId: caller.requestId,
      now,
    });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.providerImportCreate,
      resourceId: id,
      after: { mode, dryRun, deactivateMissing, received: providers.length },
    });
  });
  return {
    providerImportAccepted: providerImportAcceptedMessage({
      importId: id,
      status: IMPORT_INITIAL_STATUS,
      dryRun,
      mode,
    }),
  };
}
