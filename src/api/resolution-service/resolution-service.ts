import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createResolution, type CreateResolutionDeps } from './create-resolution.js';
import { listResolutions, type ListResolutionsDeps } from './list-resolutions.js';
import { getResolution, type GetResolutionDeps } from './get-resolution.js';
import { listCandidates, type ListCandidatesDeps } from './list-candidates.js';
import { holdOption, type HoldOptionDeps } from './hold-option.js';
import { getHold, type GetHoldDeps } from './get-hold.js';
import { releaseHold, type ReleaseHoldDeps } from './release-hold.js';
import { confirmResolution, type ConfirmResolutionDeps } from './confirm-resolution.js';

/** What the ResolutionService RPCs use together. */
export type ResolutionServiceDeps = CreateResolutionDeps &
  ListResolutionsDeps &
  GetResolutionDeps &
  ListCandidatesDeps &
  HoldOptionDeps &
  GetHoldDeps &
  ReleaseHoldDeps &
  ConfirmResolutionDeps;

/**
 * ResolutionService (SPEC parts 2 and 4, CONTRACT parts 4 and 5): resolutions, their candidates, holds and
 * confirmation, each RPC with what it records in the audit log.
 */
export function resolutionService(deps: ResolutionServiceDeps): OperationTable {
  return {
    CreateResolution: typedOperation({ ...AUDIT_ACTIONS.resolutionCreate, kind: 'write' }, (caller, r, call) =>
      createResolution(deps, caller, r, call),
    ),
    ListResolutions: typedOperation({ ...AUDIT_ACTIONS.resolutionList, kind: 'read' }, (caller, r) =>
      listResolutions(deps, caller, r),
    ),
    GetResolution: typedOperation({ ...AUDIT_ACTIONS.resolutionRead, kind: 'read' }, (caller, r) =>
      getResolution(deps, caller, r),
    ),
    ListCandidates: typedOperation({ ...AUDIT_ACTIONS.resolutionCandidates, kind: 'read' }, (caller, r) =>
      listCandidates(deps, caller, r),
    ),
    HoldOption: typedOperation({ ...AUDIT_ACTIONS.holdCreate, kind: 'write' }, (caller, r, call) =>
      holdOption(deps, caller, r, call),
    ),
    GetHold: typedOperation({ ...AUDIT_ACTIONS.holdRead, kind: 'read' }, (caller, r) => getHold(deps, caller, r)),
    ReleaseHold: typedOperation({ ...AUDIT_ACTIONS.holdRelease, kind: 'write-if-changed' }, (caller, r) =>
      releaseHold(deps, caller, r),
    ),
    ConfirmResolution: typedOperation({ ...AUDIT_ACTIONS.bookingCreate, kind: 'write' }, (caller, r, call) =>
      confirmResolution(deps, caller, r, call),
    ),
  };
}
