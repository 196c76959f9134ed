import type { GetOrganizationRequest, GetOrganizationResponse } from '../../gen/scheduling/v1/organization_service.js';
import { OrganizationPath } from '../../contract/schemas/organization.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { organizationMessage } from '../messages/organization-message.js';
import { visibleOrganization } from './visible-organization.js';

/** What GetOrganization uses. */
export interface GetOrganizationDeps {
  organizations: OrganizationCache;
}

/** GetOrganization: one organization the caller may see (its platform's, or an organization key's own). */
export async function getOrganization(
  deps: GetOrganizationDeps,
  caller: Caller,
  request: GetOrganizationRequest,
): Promise<GetOrganizationResponse> {
  const id = pathId(OrganizationPath.shape.id, request.id);
  return { organization: organizationMessage(await visibleOrganization(deps.organizations, caller, id)) };
}
