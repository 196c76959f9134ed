import type { ApiKeyRecord } from '../../persistence/api-key-repository.js';
import type { ApiKey } from '../../gen/scheduling/v1/resources.js';

/** The `ApiKey` message of a key row (never its secret); a key without expiry or revocation leaves those unset. */
export function apiKeyMessage(key: ApiKeyRecord): ApiKey {
  return {
    id: key.id,
    type: key.type,
    organizationId: key.organizationId,
    name: key.name,
    hint: key.hint,
    createdAt: new Date(key.createdAt),
    expiresAt: key.expiresAt === null ? undefined : new Date(key.expiresAt),
    revokedAt: key.revokedAt === null ? undefined : new Date(key.revokedAt),
  };
}
