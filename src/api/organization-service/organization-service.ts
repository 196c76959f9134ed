import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createOrganization, type CreateOrganizationDeps } from './create-organization.js';
import { listOrganizations, type ListOrganizationsDeps } from './list-organizations.js';
import { getOrganization, type GetOrganizationDeps } from './get-organization.js';
import { getOrganizationOverview, type GetOrganizationOverviewDeps } from './get-organization-overview.js';
import { updateOrganization, type UpdateOrganizationDeps } from './update-organization.js';

/** What the OrganizationService RPCs use together. */
export type OrganizationServiceDeps = CreateOrganizationDeps &
  ListOrganizationsDeps &
  GetOrganizationDeps &
  GetOrganizationOverviewDeps &
  UpdateOrganizationDeps;

/** OrganizationService (CONTRACT part 2): each RPC with what it records in the audit log. */
export function organizationService(deps: OrganizationServiceDeps): OperationTable {
  return {
    CreateOrganization: typedOperation({ ...AUDIT_ACTIONS.organizationCreate, kind: 'write' }, (caller, r) =>
      createOrganization(deps, caller, r),
    ),
    ListOrganizations: typedOperation({ ...AUDIT_ACTIONS.organizationList, kind: 'read' }, (caller, r) =>
      listOrganizations(deps, caller, r),
    ),
    GetOrganization: typedOperation({ ...AUDIT_ACTIONS.organizationRead, kind: 'read' }, (caller, r) =>
      getOrganization(deps, caller, r),
    ),
    GetOrganizationOverview: typedOperation({ ...AUDIT_ACTIONS.organizationOverview, kind: 'read' }, (caller, r) =>
      getOrganizationOverview(deps, caller, r),
    ),
    UpdateOrganization: typedOperation({ ...AUDIT_ACTIONS.organizationUpdate, kind: 'write' }, (caller, r) =>
      updateOrganization(deps, caller, r),
    ),
  };
}
