import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { listEvents, type ListEventsDeps } from './list-events.js';
import { getEvent, type GetEventDeps } from './get-event.js';

/** What the EventService RPCs use together. */
export type EventServiceDeps = ListEventsDeps & GetEventDeps;

/**
 * EventService (CONTRACT part 8): the caller's organization's events of the last 30 days, each the envelope its
 * webhook deliveries carry; each RPC with what it records in the audit log.
 */
export function eventService(deps: EventServiceDeps): OperationTable {
  return {
    ListEvents: typedOperation({ ...AUDIT_ACTIONS.eventList, kind: 'read' }, (caller, r) =>
      listEvents(deps, caller, r),
    ),
    GetEvent: typedOperation({ ...AUDIT_ACTIONS.eventRead, kind: 'read' }, (caller, r) => getEvent(deps, caller, r)),
  };
}
