import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createService, type CreateServiceDeps } from './create-service.js';
import { listServices, type ListServicesDeps } from './list-services.js';
import { getService, type GetServiceDeps } from './get-service.js';
import { updateService, type UpdateServiceDeps } from './update-service.js';
import { deleteService, type DeleteServiceDeps } from './delete-service.js';
import { listEventTypes, type ListEventTypesDeps } from './list-event-types.js';

/** What the CatalogService RPCs use together. */
export type CatalogServiceDeps = CreateServiceDeps &
  ListServicesDeps &
  GetServiceDeps &
  UpdateServiceDeps &
  DeleteServiceDeps &
  ListEventTypesDeps;

/** CatalogService (CONTRACT part 3): services (session types) of providers and their v1 event-type view. */
export function catalogService(deps: CatalogServiceDeps): OperationTable {
  return {
    CreateService: typedOperation({ ...AUDIT_ACTIONS.serviceCreate, kind: 'write' }, (caller, r) =>
      createService(deps, caller, r),
    ),
    ListServices: typedOperation({ ...AUDIT_ACTIONS.serviceList, kind: 'read' }, (caller, r) =>
      listServices(deps, caller, r),
    ),
    GetService: typedOperation({ ...AUDIT_ACTIONS.serviceRead, kind: 'read' }, (caller, r) =>
      getService(deps, caller, r),
    ),
    UpdateService: typedOperation({ ...AUDIT_ACTIONS.serviceUpdate, kind: 'write-if-changed' }, (caller, r) =>
      updateService(deps, caller, r),
    ),
    DeleteService: typedOperation({ ...AUDIT_ACTIONS.serviceDelete, kind: 'write' }, (caller, r) =>
      deleteService(deps, caller, r),
    ),
    ListEventTypes: typedOperation({ ...AUDIT_ACTIONS.serviceList, kind: 'read' }, (caller, r) =>
      listEventTypes(deps, caller, r),
    ),
  };
}
