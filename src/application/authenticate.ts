import { ServiceError } from '../errors/service-error.js';
import { hashApiKey, isWellFormedApiKey, sameKeyHash } from '../domain/api-key-secret.js';
import type { Caller } from './caller.js';
import type { CredentialCache } from './credential-cache.js';
import type { FailedAuthLimit } from './failed-auth-limit.js';

/** Credentials as they arrive on either door (REST headers or gRPC metadata). */
export interface Credentials {
  authorization: string | undefined;
  organizationHeader: string | undefined;
  requestId: string;
  /** The address of the client the call is made for, which failed authentications are counted against. */
  clientAddress?: string;
}

/**
 * Resolves credentials to a Caller: key type, mode and the organization the call acts in (SPEC part 5, CONTRACT part 2).
 * Key and organization lookups go through the credential cache (no PostgreSQL round trip per request). A key that is
 * missing, malformed, unknown, revoked or expired is counted against the client's address by `failedAuth`, which
 * turns the failures of an address past its limit into 429 RATE_LIMITED.
 */
export function createAuthenticator(deps: {
  credentials: CredentialCache;
  clock: () => Date;
  failedAuth?: FailedAuthLimit;
}) {
  /**
   * `onValidKey` runs once the key is known valid, before the organization is resolved: the rate limit counts every
   * call made with a valid key, those then refused for their Service-Organization-Id included (CONTRACT part 1).
   */
  return async function authenticate(
    creds: Credentials,
    onValidKey?: (keyId: string) => Promise<void>,
  ): Promise<Caller> {
    const refuse = async (message: string): Promise<never> => {
      const failure = new ServiceError('UNAUTHENTICATED', message);
      throw deps.failedAuth ? await deps.failedAuth(creds.clientAddress, failure) : failure;
    };
    const match = /^Bearer\s+(\S+)$/i.exec(creds.authorization?.trim() ?? '');
    const key = match?.[1];
    if (!key || !isWellFormedApiKey(key))
      return refuse('Authorization must be `Bearer <API key>` with a service_live_ or service_test_ key.');
    const hash = hashApiKey(key);
    const row = await deps.credentials.keyByHash(hash);
    if (!row || !sameKeyHash(row.key_hash, hash)) return refuse('The API key is not valid.');
    if (row.revoked_at) return refuse('The API key was revoked.');
    if (row.expires_at && row.expires_at.getTime() <= deps.clock().getTime()) return refuse('The API key has expired.');
    await onValidKey?.(row.id);
    const isPlatformKey = row.type.startsWith('platform_');
    const header = creds.organizationHeader?.trim() || undefined;
    let organizationId = row.organization_id;
    if (header !== undefined) {
      if (!isPlatformKey)
        throw new ServiceError('UNAUTHENTICATED', 'Service-Organization-Id may only be sent with a platform key.');
      if ((await deps.credentials.platformOfOrganization(header)) !== row.platform_id)
        throw new ServiceError(
          'FORBIDDEN',
          'The organization in Service-Organization-Id does not belong to this platform.',
        );
      organizationId = header;
    }
    return {
      requestId: creds.requestId,
      keyId: row.id,
      keyType: row.type,
      mode: row.type.endsWith('_live') ? 'live' : 'test',
      platformId: row.platform_id,
      organizationId,
      isPlatformKey,
      viaOrganizationHeader: header !== undefined,
    };
  };
}

/** The authenticate function created by createAuthenticator. */
export type Authenticate = ReturnType<typeof createAuthenticator>;

/** Throws PLATFORM_KEY_REQUIRED unless the caller holds a platform key. */
export function requirePlatformKey(caller: Caller): void {
  if (!caller.isPlatformKey) throw new ServiceError('PLATFORM_KEY_REQUIRED');
}
