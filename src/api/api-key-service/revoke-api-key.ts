import { ServiceError } from '../../errors/service-error.js';
import type { RevokeApiKeyRequest, RevokeApiKeyResponse } from '../../gen/scheduling/v1/api_key_service.js';
import { ApiKeyPath } from '../../contract/schemas/api-key.js';
import type { Database } from '../../persistence/database.js';
import { findApiKey, revokeApiKey as revokeApiKeyRow } from '../../persistence/api-key-repository.js';
import type { CredentialCache } from '../../application/credential-cache.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { pathId } from '../request-problems.js';
import { apiKeyMessage } from '../messages/api-key-message.js';

/** What RevokeApiKey uses. */
export interface RevokeApiKeyDeps {
  db: Database;
  clock: () => Date;
  credentials: CredentialCache;
}

/**
 * RevokeApiKey (platform key): revokes a key of the platform at once and answers it with `revoked_at`; revoking a
 * revoked key answers it unchanged (and audits nothing). Audited as `api_key.revoke`.
 */
export async function revokeApiKey(
  deps: RevokeApiKeyDeps,
  caller: Caller,
  request: RevokeApiKeyRequest,
): Promise<RevokeApiKeyResponse> {
  requirePlatformKey(caller);
  const id = pathId(ApiKeyPath.shape.id, request.id);
  const now = deps.clock();
  const revoked = await deps.db.transaction(async (tx) => {
    const cur = await findApiKey(tx, id, { forUpdate: true });
    if (!cur) throw new ServiceError('API_KEY_NOT_FOUND');
    if (cur.platformId !== caller.platformId) throw new ServiceError('FORBIDDEN');
    if (cur.record.revokedAt) return cur.record;
    const after = await revokeApiKeyRow(tx, id, now);
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.apiKeyRevoke,
      resourceId: id,
      before: cur.record,
      after,
      organizationId: cur.record.organizationId,
    });
    return after;
  });
  // This process stops accepting the key at once; the others within the cache's lifetime of a lookup.
  deps.credentials.forgetKey(id);
  return { apiKey: apiKeyMessage(revoked) };
}
