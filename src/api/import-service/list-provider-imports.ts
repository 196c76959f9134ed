import type {
  ListProviderImportsRequest,
  ListProviderImportsResponse,
} from '../../gen/scheduling/v1/import_service.js';
import { ListProviderImportsQuery } from '../../contract/schemas/provider-import.js';
import type { Database } from '../../persistence/database.js';
import { listProviderImportRows, toProviderImport } from '../../persistence/provider-import-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { providerImportMessage } from '../messages/provider-import-message.js';
import { importOfCaller } from './import-of-caller.js';

/** What ListProviderImports uses. */
export interface ListProviderImportsDeps {
  db: Database;
}

/**
 * ListProviderImports: with `import_id`, that job of the caller's organization (404 IMPORT_NOT_FOUND, 403 another's);
 * without, the organization's jobs newest first, a page at a time.
 */
export async function listProviderImports(
  deps: ListProviderImportsDeps,
  caller: Caller,
  request: ListProviderImportsRequest,
): Promise<ListProviderImportsResponse> {
  const problems = new RequestProblems();
  const importId = problems.check('importId', ListProviderImportsQuery.shape.importId, request.importId);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  if (importId !== undefined)
    return {
      kind: { $case: 'providerImport', value: providerImportMessage(await importOfCaller(deps.db, caller, importId)) },
    };
  const rows = await listProviderImportRows(deps.db, caller.organizationId, {
    before: paging.position(),
    limit: paging.size + 1,
  });
  const jobs = rows.map(toProviderImport);
  return { kind: { $case: 'page', value: pageMessage(jobs, paging.size, (i) => i.importId, providerImportMessage) } };
}
