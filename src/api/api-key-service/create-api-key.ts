import { ServiceError } from '../../errors/service-error.js';
import type { CreateApiKeyRequest, CreateApiKeyResponse } from '../../gen/scheduling/v1/api_key_service.js';
import { CreateApiKeyBody } from '../../contract/schemas/api-key.js';
import type { Database } from '../../persistence/database.js';
import { insertApiKey } from '../../persistence/api-key-repository.js';
import { findDefaultOrganizationId } from '../../persistence/organization-repository.js';
import type { OrganizationCache } from '../../application/organization-cache.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { apiKeyMessage, keyTypeOfMessage } from '../messages/api-key-message.js';

/** What CreateApiKey uses. */
export interface CreateApiKeyDeps {
  db: Database;
  clock: () => Date;
  organizations: OrganizationCache;
}

/**
 * CreateApiKey (platform key): a key of the caller's platform, answered once with its secret (`key`; only a hash is
 * stored). A platform key type belongs to the platform's default organization, an organization key to
 * `organization_id` (default: the organization the call acts in). A test key creates only test keys (403
 * LIVE_KEY_REQUIRED on `type`); `expires_at` must be in the future. Audited as `api_key.create`.
 */
export async function createApiKey(
  deps: CreateApiKeyDeps,
  caller: Caller,
  request: CreateApiKeyRequest,
): Promise<CreateApiKeyResponse> {
  requirePlatformKey(caller);
  const problems = new RequestProblems();
  const type = keyTypeOfMessage(request.keyType);
  if (type === undefined) problems.check('type', CreateApiKeyBody.shape.type, undefined);
  const organizationId = problems.check(
    'organizationId',
    CreateApiKeyBody.shape.organizationId,
    request.organizationId,
  );
  const name = problems.check('name', CreateApiKeyBody.shape.name, given(request.name));
  problems.throwIfAny();
  // A test key may create only test keys (CONTRACT part 2): it must not be a way to a live key.
  if (type!.endsWith('_live') && caller.mode !== 'live')
    throw new ServiceError('LIVE_KEY_REQUIRED', 'A test key may create only test keys: use a service_live_ key.', {
      field: 'type',
    });
  const orgId = type!.startsWith('platform_')
    ? await findDefaultOrganizationId(deps.db, caller.platformId)
    : (organizationId ?? caller.organizationId);
  const org = orgId === undefined ? undefined : await deps.organizations.find(orgId);
  if (!orgId || !org) throw new ServiceError('ORGANIZATION_NOT_FOUND', undefined, { field: 'organizationId' });
  if (org.platformId !== caller.platformId) throw new ServiceError('FORBIDDEN', undefined, { field: 'organizationId' });
  const now = deps.clock();
  const expiresAt = request.expiresAt ?? null;
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    throw new ServiceError('VALIDATION_ERROR', 'expiresAt must be in the future.', {
      field: 'expiresAt',
      details: [{ field: 'expiresAt', code: 'INVALID', message: 'must be in the future' }],
    });
  const created = await deps.db.transaction(async (tx) => {
    const { record, key } = await insertApiKey(tx, {
      platformId: caller.platformId,
      organizationId: orgId,
      type: type!,
      name: name!,
      expiresAt,
      now,
    });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.apiKeyCreate,
      resourceId: record.id,
      after: record,
      organizationId: orgId,
    });
    return { record, key };
  });
  return { createdApiKey: { ...apiKeyMessage(created.record), key: created.key } };
}
