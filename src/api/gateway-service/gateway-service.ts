import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { refuse, type RefuseDeps } from './refuse.js';
import { checkCredentials, type CheckCredentialsDeps } from './check-credentials.js';

/** What the GatewayService RPCs use together. */
export type GatewayServiceDeps = RefuseDeps & CheckCredentialsDeps;

/**
 * GatewayService: what the REST gateway asks of the internal API outside any operation; each RPC with what it records
 * in the audit log. CheckCredentials is not counted against the key's rate limit: it runs ahead of the request's own
 * call, which is.
 */
export function gatewayService(deps: GatewayServiceDeps): OperationTable {
  return {
    CheckCredentials: typedOperation(
      { ...AUDIT_ACTIONS.credentialsCheck, kind: 'read' },
      (caller, r) => checkCredentials(deps, caller, r),
      { uncounted: true },
    ),
    Refuse: typedOperation({ ...AUDIT_ACTIONS.requestRefuse, kind: 'read' }, (caller, r) => refuse(deps, caller, r)),
  };
}
