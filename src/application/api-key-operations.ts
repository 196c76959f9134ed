import { ServiceError } from '../errors/service-error.js';
import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import { ApiKeyPath, CreateApiKeyBody, ListApiKeysQuery } from '../contract/schemas/api-key.js';
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../persistence/api-key-repository.js';
import { findDefaultOrganizationId } from '../persistence/organization-repository.js';
import type { OrganizationCache } from './organization-cache.js';
import type { AppDeps } from './app-deps.js';
import type { CredentialCache } from './credential-cache.js';
import { requirePlatformKey } from './authenticate.js';
import type { OperationTable } from './operation.js';
import { recordAudit } from './record-audit.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/**
 * ApiKeyService operations: create (a test key only test keys), list and revoke keys of the caller's platform (platform
 * key only), and who a key is.
 */
export function createApiKeyOperations(
  deps: AppDeps & { credentials: CredentialCache; organizations: OrganizationCache },
): OperationTable {
  return {
    CreateApiKey: {
      audit: { ...AUDIT_ACTIONS.apiKeyCreate, kind: 'write' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const body = parseInput(CreateApiKeyBody, input.body);
        // A test key may create only test keys (CONTRACT part 2): it must not be a way to a live key.
        if (body.type.endsWith('_live') && caller.mode !== 'live')
          throw new ServiceError(
            'LIVE_KEY_REQUIRED',
            'A test key may create only test keys: use a service_live_ key.',
            {
              field: 'type',
            },
          );
        const isPlatformType = body.type.startsWith('platform_');
        const orgId = isPlatformType
          ? await findDefaultOrganizationId(deps.db, caller.platformId)
          : (body.organizationId ?? caller.organizationId);
        const org = orgId === undefined ? undefined : await deps.organizations.find(orgId);
        if (!orgId || !org) throw new ServiceError('ORGANIZATION_NOT_FOUND', undefined, { field: 'organizationId' });
        if (org.platformId !== caller.platformId)
          throw new ServiceError('FORBIDDEN', undefined, { field: 'organizationId' });
        const now = deps.clock();
        const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
        if (expiresAt && expiresAt.getTime() <= now.getTime())
          throw new ServiceError('VALIDATION_ERROR', 'expiresAt must be in the future.', {
            field: 'expiresAt',
            details: [{ field: 'expiresAt', code: 'INVALID', message: 'must be in the future' }],
          });
        return deps.db.transaction(async (tx) => {
          const { record, key } = await insertApiKey(tx, {
            platformId: caller.platformId,
            organizationId: orgId,
            type: body.type,
            name: body.name,
            expiresAt,
            now,
          });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.apiKeyCreate,
            resourceId: record.id,
            after: record,
            organizationId: orgId,
          });
          return { ...record, key };
        });
      },
    },
    ListApiKeys: {
      audit: { ...AUDIT_ACTIONS.apiKeyList, kind: 'read' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const q = parseInput(ListApiKeysQuery, input.query);
        const limit = q.limit ?? 50;
        const rows = await listApiKeys(deps.db, caller.platformId, {
          after: decodeCursor(q.cursor) ?? '',
          limit: limit + 1,
        });
        return page(rows, limit, (k) => k.id);
      },
    },
    RevokeApiKey: {
      audit: { ...AUDIT_ACTIONS.apiKeyRevoke, kind: 'write-if-changed' },
      async handler(caller, input) {
        requirePlatformKey(caller);
        const { id } = parseInput(ApiKeyPath, input.params);
        const now = deps.clock();
        const revoked = await deps.db.transaction(async (tx) => {
          const cur = await findApiKey(tx, id, { forUpdate: true });
          if (!cur) throw new ServiceError('API_KEY_NOT_FOUND');
          if (cur.platformId !== caller.platformId) throw new ServiceError('FORBIDDEN');
          if (cur.record.revokedAt) return cur.record;
          const after = await revokeApiKey(tx, id, now);
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
        return revoked;
      },
    },
    GetCaller: {
      audit: { ...AUDIT_ACTIONS.callerRead, kind: 'read' },
      async handler(caller) {
        // A platform key without the header acts in its platform's default organization, but names none.
        const organizationId = caller.isPlatformKey && !caller.viaOrganizationHeader ? null : caller.organizationId;
        const [org, defaultOrganizationId] = await Promise.all([
          organizationId === null ? undefined : deps.organizations.find(organizationId),
          caller.isPlatformKey ? findDefaultOrganizationId(deps.db, caller.platformId) : undefined,
        ]);
        return {
          keyId: caller.keyId,
          keyType: caller.keyType,
          mode: caller.mode,
          platformId: caller.platformId,
          organizationId,
          defaultOrganizationId: defaultOrganizationId ?? null,
          organization: org
            ? {
                id: org.id,
                name: org.name,
                externalId: org.externalId,
                settings: org.settings,
                providerGraphVersion: org.providerGraphVersion,
              }
            : null,
        };
      },
    },
  };
}
