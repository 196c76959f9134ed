import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createProvider, type CreateProviderDeps } from './create-provider.js';
import { listProviders, type ListProvidersDeps } from './list-providers.js';
import { getProvider, type GetProviderDeps } from './get-provider.js';
import { updateProvider, type UpdateProviderDeps } from './update-provider.js';
import { deleteProvider, type DeleteProviderDeps } from './delete-provider.js';
import { listProfessionals, type ListProfessionalsDeps } from './list-professionals.js';
import { getProfessional, type GetProfessionalDeps } from './get-professional.js';

/** What the ProviderService RPCs use together. */
export type ProviderServiceDeps = CreateProviderDeps &
  ListProvidersDeps &
  GetProviderDeps &
  UpdateProviderDeps &
  DeleteProviderDeps &
  ListProfessionalsDeps &
  GetProfessionalDeps;

/** ProviderService (CONTRACT part 3, and the v1 professional views): each RPC with what it records in the audit log. */
export function providerService(deps: ProviderServiceDeps): OperationTable {
  return {
    CreateProvider: typedOperation({ ...AUDIT_ACTIONS.providerCreate, kind: 'write' }, (caller, r) =>
      createProvider(deps, caller, r),
    ),
    ListProviders: typedOperation({ ...AUDIT_ACTIONS.providerList, kind: 'read' }, (caller, r) =>
      listProviders(deps, caller, r),
    ),
    GetProvider: typedOperation({ ...AUDIT_ACTIONS.providerRead, kind: 'read' }, (caller, r) =>
      getProvider(deps, caller, r),
    ),
    UpdateProvider: typedOperation({ ...AUDIT_ACTIONS.providerUpdate, kind: 'write-if-changed' }, (caller, r) =>
      updateProvider(deps, caller, r),
    ),
    DeleteProvider: typedOperation({ ...AUDIT_ACTIONS.providerDelete, kind: 'write-if-changed' }, (caller, r) =>
      deleteProvider(deps, caller, r),
    ),
    ListProfessionals: typedOperation({ ...AUDIT_ACTIONS.providerList, kind: 'read' }, (caller, r) =>
      listProfessionals(deps, caller, r),
    ),
    GetProfessional: typedOperation({ ...AUDIT_ACTIONS.providerRead, kind: 'read' }, (caller, r) =>
      getProfessional(deps, caller, r),
    ),
  };
}
