import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { listAuditEvents, type ListAuditEventsDeps } from './list-audit-events.js';
import { verifyAuditChain, type VerifyAuditChainDeps } from './verify-audit-chain.js';

/** What the AuditService RPCs use together. */
export type AuditServiceDeps = ListAuditEventsDeps & VerifyAuditChainDeps;

/**
 * AuditService (CONTRACT part 7): the caller's organization's audit log and its hash chain's verification; each RPC
 * with what it records in the audit log.
 */
export function auditService(deps: AuditServiceDeps): OperationTable {
  return {
    ListAuditEvents: typedOperation({ ...AUDIT_ACTIONS.auditEventList, kind: 'read' }, (caller, r) =>
      listAuditEvents(deps, caller, r),
    ),
    VerifyAuditChain: typedOperation({ ...AUDIT_ACTIONS.auditChainVerify, kind: 'read' }, (caller, r) =>
      verifyAuditChain(deps, caller, r),
    ),
  };
}
