import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { getCaller, type GetCallerDeps } from './get-caller.js';
import { createApiKey, type CreateApiKeyDeps } from './create-api-key.js';
import { listApiKeys, type ListApiKeysDeps } from './list-api-keys.js';
import { revokeApiKey, type RevokeApiKeyDeps } from './revoke-api-key.js';

/** What the ApiKeyService RPCs use together. */
export type ApiKeyServiceDeps = GetCallerDeps & CreateApiKeyDeps & ListApiKeysDeps & RevokeApiKeyDeps;

/**
 * ApiKeyService: who a key is, and create (a test key only test keys), list and revoke keys of the caller's platform
 * (platform key only); each RPC with what it records in the audit log.
 */
export function apiKeyService(deps: ApiKeyServiceDeps): OperationTable {
  return {
    GetCaller: typedOperation({ ...AUDIT_ACTIONS.callerRead, kind: 'read' }, (caller, r) => getCaller(deps, caller, r)),
    CreateApiKey: typedOperation({ ...AUDIT_ACTIONS.apiKeyCreate, kind: 'write' }, (caller, r) =>
      createApiKey(deps, caller, r),
    ),
    ListApiKeys: typedOperation({ ...AUDIT_ACTIONS.apiKeyList, kind: 'read' }, (caller, r) =>
      listApiKeys(deps, caller, r),
    ),
    RevokeApiKey: typedOperation({ ...AUDIT_ACTIONS.apiKeyRevoke, kind: 'write-if-changed' }, (caller, r) =>
      revokeApiKey(deps, caller, r),
    ),
  };
}
