import type { GetCallerRequest, GetCallerResponse } from '../../gen/scheduling/v1/api_key_service.js';
import type { Database } from '../../persistence/database.js';
import { findDefaultOrganizationId } from '../../persistence/organization-repository.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import type { Caller } from '../../application/caller.js';
import { settingsViewMessage } from '../messages/organization-message.js';
import { keyModeMessage, keyTypeMessage } from '../messages/api-key-message.js';

/** What GetCaller uses. */
export interface GetCallerDeps {
  db: Database;
  organizations: OrganizationCache;
}

/**
 * GetCaller (any key): who the credentials are — key, type, mode, platform — and the organization the call acts in,
 * unset for a platform key without Service-Organization-Id (which acts in its platform's default organization, named
 * in `default_organization_id`, but names none).
 */
export async function getCaller(
  deps: GetCallerDeps,
  caller: Caller,
  _request: GetCallerRequest,
): Promise<GetCallerResponse> {
  const organizationId = caller.isPlatformKey && !caller.viaOrganizationHeader ? undefined : caller.organizationId;
  const [org, defaultOrganizationId] = await Promise.all([
    organizationId === undefined ? undefined : deps.organizations.find(organizationId),
    caller.isPlatformKey ? findDefaultOrganizationId(deps.db, caller.platformId) : undefined,
  ]);
  return {
    callerIdentity: {
      keyId: caller.keyId,
      keyType: keyTypeMessage(caller.keyType),
      keyMode: keyModeMessage(caller.mode),
      platformId: caller.platformId,
      organizationId,
      defaultOrganizationId: defaultOrganizationId ?? undefined,
      organization: org
        ? {
            id: org.id,
            name: org.name,
            externalId: org.externalId,
            settings: settingsViewMessage(org.settings),
            providerGraphVersion: org.providerGraphVersion,
          }
        : undefined,
    },
  };
}
