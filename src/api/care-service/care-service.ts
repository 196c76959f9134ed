import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createContinuity, type CreateContinuityDeps } from './create-continuity.js';
import { listContinuity, type ListContinuityDeps } from './list-continuity.js';
import { createWaitlistEntry, type CreateWaitlistEntryDeps } from './create-waitlist-entry.js';
import { listWaitlistEntries, type ListWaitlistEntriesDeps } from './list-waitlist-entries.js';
import { cancelWaitlistEntry, type CancelWaitlistEntryDeps } from './cancel-waitlist-entry.js';
import { listManualReview, type ListManualReviewDeps } from './list-manual-review.js';
import { resolveManualReview, type ResolveManualReviewDeps } from './resolve-manual-review.js';

/** What the CareService RPCs use together. */
export type CareServiceDeps = CreateContinuityDeps &
  ListContinuityDeps &
  CreateWaitlistEntryDeps &
  ListWaitlistEntriesDeps &
  CancelWaitlistEntryDeps &
  ListManualReviewDeps &
  ResolveManualReviewDeps;

/**
 * CareService (SPEC 4.7, CONTRACT part 7): continuity records, the waitlist and the manual-review queue, each RPC
 * with what it records in the audit log.
 */
export function careService(deps: CareServiceDeps): OperationTable {
  return {
    CreateContinuity: typedOperation({ ...AUDIT_ACTIONS.continuityCreate, kind: 'write-if-changed' }, (caller, r) =>
      createContinuity(deps, caller, r),
    ),
    ListContinuity: typedOperation({ ...AUDIT_ACTIONS.continuityList, kind: 'read' }, (caller, r) =>
      listContinuity(deps, caller, r),
    ),
    CreateWaitlistEntry: typedOperation({ ...AUDIT_ACTIONS.waitlistEntryCreate, kind: 'write' }, (caller, r) =>
      createWaitlistEntry(deps, caller, r),
    ),
    ListWaitlistEntries: typedOperation({ ...AUDIT_ACTIONS.waitlistEntryList, kind: 'read' }, (caller, r) =>
      listWaitlistEntries(deps, caller, r),
    ),
    CancelWaitlistEntry: typedOperation(
      { ...AUDIT_ACTIONS.waitlistEntryCancel, kind: 'write-if-changed' },
      (caller, r) => cancelWaitlistEntry(deps, caller, r),
    ),
    ListManualReview: typedOperation({ ...AUDIT_ACTIONS.manualReviewList, kind: 'read' }, (caller, r) =>
      listManualReview(deps, caller, r),
    ),
    ResolveManualReview: typedOperation(
      { ...AUDIT_ACTIONS.manualReviewResolve, kind: 'write-if-changed' },
      (caller, r) => resolveManualReview(deps, caller, r),
    ),
  };
}
