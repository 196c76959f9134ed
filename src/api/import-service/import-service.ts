import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createProviderImport, type CreateProviderImportDeps } from './create-provider-import.js';
import { getProviderImport, type GetProviderImportDeps } from './get-provider-import.js';
import { listProviderImports, type ListProviderImportsDeps } from './list-provider-imports.js';

/** What the ImportService RPCs use together. */
export type ImportServiceDeps = CreateProviderImportDeps & GetProviderImportDeps & ListProviderImportsDeps;

/** ImportService (SPEC 4.3, CONTRACT part 3): asynchronous bulk provider imports, each RPC with its audit entry. */
export function importService(deps: ImportServiceDeps): OperationTable {
  return {
    CreateProviderImport: typedOperation({ ...AUDIT_ACTIONS.providerImportCreate, kind: 'write' }, (caller, r) =>
      createProviderImport(deps, caller, r),
    ),
    GetProviderImport: typedOperation({ ...AUDIT_ACTIONS.providerImportRead, kind: 'read' }, (caller, r) =>
      getProviderImport(deps, caller, r),
    ),
    ListProviderImports: typedOperation({ ...AUDIT_ACTIONS.providerImportList, kind: 'read' }, (caller, r) =>
      listProviderImports(deps, caller, r),
    ),
  };
}
