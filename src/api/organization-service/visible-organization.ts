import { ServiceError } from '../../errors/service-error.js';
import type { OrganizationRecord } from '../../persistence/organization-repository.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import type { Caller } from '../../application/caller.js';

/**
 * Reads an organization the caller may see: its platform's (platform key) or its own (organization key); 404
 * ORGANIZATION_NOT_FOUND, 403 FORBIDDEN otherwise.
 */
export async function visibleOrganization(
  organizations: OrganizationCache,
  caller: Caller,
  id: string,
): Promise<OrganizationRecord> {
  const org = await organizations.find(id);
  if (!org) throw new ServiceError('ORGANIZATION_NOT_FOUND');
  if (org.platformId !== caller.platformId || (!caller.isPlatformKey && org.id !== caller.organizationId))
    throw new ServiceError('FORBIDDEN');
  return org;
}
