import type { Database } from '../persistence/database.js';
import { ServiceError } from '../errors/service-error.js';
import { hashApiKey, isWellFormedApiKey, sameKeyHash } from './api-key-secret.js';
import type { Caller, KeyType } from './caller.js';

/** Credentials as they arrive on either door (REST headers or gRPC metadata). */
export interface Credentials {
  authorization: string | undefined;
  organizationHeader: string | undefined;
  requestId: string;
}

interface KeyRow {
  id: string;
  platform_id: string;
  organization_id: string;
  type: KeyType;
  key_hash: Buffer;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** Resolves credentials to a Caller: key type, mode and the organization the call acts in (SPEC part 5, CONTRACT part 2). */
export function createAuthenticator(deps: { db: Database; clock: () => Date }) {
  return async function authenticate(creds: Credentials): Promise<Caller> {
    const match = /^Bearer\s+(\S+)$/i.exec(creds.authorization?.trim() ?? '');
    const key = match?.[1];
    if (!key || !isWellFormedApiKey(key)) throw new ServiceError('UNAUTHENTICATED', 'Authorization must be `Bearer <API key>` with a service_live_ or service_test_ key.');
    const hash = hashApiKey(key);
    const r = await deps.db.query<KeyRow>({ name: 'api-key-by-hash', text: 'SELECT id, platform_id, organization_id, type, key_hash, expires_at, revoked_at FROM api_keys WHERE key_hash = $1', values: [hash] });
    const row = r.rows[0];
    if (!row || !sameKeyHash(row.key_hash, hash)) throw new ServiceError('UNAUTHENTICATED', 'The API key is not valid.');
    if (row.revoked_at) throw new ServiceError('UNAUTHENTICATED', 'The API key was revoked.');
    if (row.expires_at && row.expires_at.getTime() <= deps.clock().getTime()) throw new ServiceError('UNAUTHENTICATED', 'The API key has expired.');
    const isPlatformKey = row.type.startsWith('platform_');
    const header = creds.organizationHeader?.trim() || undefined;
    let organizationId = row.organization_id;
    if (header !== undefined) {
      if (!isPlatformKey) throw new ServiceError('UNAUTHENTICATED', 'Service-Organization-Id may only be sent with a platform key.');
      const org = await deps.db.query<{ platform_id: string }>('SELECT platform_id FROM organizations WHERE id = $1', [header]);
      if (org.rows[0]?.platform_id !== row.platform_id) throw new ServiceError('FORBIDDEN', 'The organization in Service-Organization-Id does not belong to this platform.');
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
