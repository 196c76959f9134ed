import type { GetProviderImportRequest, GetProviderImportResponse } from '../../gen/scheduling/v1/import_service.js';
import { ProviderImportPath } from '../../contract/schemas/provider-import.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { given, RequestProblems } from '../request-problems.js';
import { providerImportMessage } from '../messages/provider-import-message.js';
import { importOfCaller } from './import-of-caller.js';

/** What GetProviderImport uses. */
export interface GetProviderImportDeps {
  db: Database;
}

/** GetProviderImport: one import job of the caller's organization (404 IMPORT_NOT_FOUND, 403 another organization's). */
export async function getProviderImport(
  deps: GetProviderImportDeps,
  caller: Caller,
  request: GetProviderImportRequest,
): Promise<GetProviderImportResponse> {
  const problems = new RequestProblems();
  // The path parameter is `importId` (REST /api/v2/provider-imports/:importId), named so as before.
  const importId = problems.check('importId', ProviderImportPath.shape.importId, given(request.importId));
  problems.throwIfAny();
  return { providerImport: providerImportMessage(await importOfCaller(deps.db, caller, importId!)) };
}
