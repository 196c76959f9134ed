import { ServiceError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { findProviderImportRow, toProviderImport } from '../../persistence/provider-import-repository.js';
import type { Caller } from '../../application/caller.js';

/** An import job of the caller's organization: 404 IMPORT_NOT_FOUND when unknown, 403 FORBIDDEN another's. */
export async function importOfCaller(db: Database, caller: Caller, id: string) {
  const row = await findProviderImportRow(db, id);
  if (!row) throw new ServiceError('IMPORT_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toProviderImport(row);
}
