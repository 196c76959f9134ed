import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { getAnalytics, type GetAnalyticsDeps } from './get-analytics.js';
import { getNetworkAdequacy, type GetNetworkAdequacyDeps } from './get-network-adequacy.js';

/** What the AnalyticsService RPCs use together. */
export type AnalyticsServiceDeps = GetAnalyticsDeps & GetNetworkAdequacyDeps;

/**
 * AnalyticsService (SPEC part 2, CONTRACT parts 7 and 8): metrics and network adequacy of the caller's organization
 * over a period ending now, computed when asked; each RPC with what it records in the audit log.
 */
export function analyticsService(deps: AnalyticsServiceDeps): OperationTable {
  return {
    GetAnalytics: typedOperation({ ...AUDIT_ACTIONS.analyticsRead, kind: 'read' }, (caller, r) =>
      getAnalytics(deps, caller, r),
    ),
    GetNetworkAdequacy: typedOperation({ ...AUDIT_ACTIONS.analyticsNetworkAdequacyRead, kind: 'read' }, (caller, r) =>
      getNetworkAdequacy(deps, caller, r),
    ),
  };
}
