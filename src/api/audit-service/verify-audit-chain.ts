import { AuditChainVerification_Status } from '../../gen/scheduling/v1/resources.js';
import type { VerifyAuditChainRequest, VerifyAuditChainResponse } from '../../gen/scheduling/v1/audit_service.js';
import type { Database } from '../../persistence/database.js';
import { verifyOrganizationAuditChain } from '../../persistence/verify-audit-chain.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';

/** What VerifyAuditChain uses. */
export interface VerifyAuditChainDeps {
  db: Database;
  clock: () => Date;
}

/** How many of the latest chain links a verification takes (REST `limit`), and how many when not asked. */
const VERIFY_LIMIT = { min: 1, max: 50_000, default: 10_000 } as const;

/**
 * VerifyAuditChain: recomputes the caller's organization's audit hash chain over its latest `limit` links (and its
 * latest events not linked yet) and reports each break; `complete` says whether that was the whole chain.
 */
export async function verifyAuditChain(
  deps: VerifyAuditChainDeps,
  caller: Caller,
  request: VerifyAuditChainRequest,
): Promise<VerifyAuditChainResponse> {
  const problems = new RequestProblems();
  const latest = request.limit ?? VERIFY_LIMIT.default;
  // A negative count is no decimal count: REST text of one would not be digits either.
  if (!Number.isInteger(latest) || latest < 0) problems.add('limit', 'must be an integer');
  else if (latest < VERIFY_LIMIT.min) problems.add('limit', `Too small: expected number to be >=${VERIFY_LIMIT.min}`);
  else if (latest > VERIFY_LIMIT.max) problems.add('limit', `Too big: expected number to be <=${VERIFY_LIMIT.max}`);
  problems.throwIfAny();
  const report = await verifyOrganizationAuditChain(deps.db, caller.organizationId, { latest });
  return {
    auditChainVerification: {
      status:
        report.breaks.length === 0
          ? AuditChainVerification_Status.STATUS_INTACT
          : AuditChainVerification_Status.STATUS_BROKEN,
      checked: report.checked,
      linked: report.linked,
      pending: report.pending,
      breaks: report.breaks.map((b) => ({ eventId: b.id, reason: b.reason })),
      fromPosition: report.fromPosition,
      toPosition: report.toPosition,
      complete: report.complete,
      verifiedAt: deps.clock(),
    },
  };
}
