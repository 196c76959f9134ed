import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { createCalendarConnection, type CreateCalendarConnectionDeps } from './create-calendar-connection.js';
import { listCalendarConnections, type ListCalendarConnectionsDeps } from './list-calendar-connections.js';
import { getCalendarConnection, type GetCalendarConnectionDeps } from './get-calendar-connection.js';
import { updateCalendarConnection, type UpdateCalendarConnectionDeps } from './update-calendar-connection.js';
import { deleteCalendarConnection, type DeleteCalendarConnectionDeps } from './delete-calendar-connection.js';

/** What the CalendarService RPCs use together. */
export type CalendarServiceDeps = CreateCalendarConnectionDeps &
  ListCalendarConnectionsDeps &
  GetCalendarConnectionDeps &
  UpdateCalendarConnectionDeps &
  DeleteCalendarConnectionDeps;

/**
 * CalendarService: weekly availability schedules with date overrides and optional iCalendar feeds; each RPC with what
 * it records in the audit log.
 */
export function calendarService(deps: CalendarServiceDeps): OperationTable {
  return {
    CreateCalendarConnection: typedOperation(
      { ...AUDIT_ACTIONS.calendarConnectionCreate, kind: 'write' },
      (caller, r) => createCalendarConnection(deps, caller, r),
    ),
    ListCalendarConnections: typedOperation({ ...AUDIT_ACTIONS.calendarConnectionList, kind: 'read' }, (caller, r) =>
      listCalendarConnections(deps, caller, r),
    ),
    GetCalendarConnection: typedOperation({ ...AUDIT_ACTIONS.calendarConnectionRead, kind: 'read' }, (caller, r) =>
      getCalendarConnection(deps, caller, r),
    ),
    UpdateCalendarConnection: typedOperation(
      { ...AUDIT_ACTIONS.calendarConnectionUpdate, kind: 'write-if-changed' },
      (caller, r) => updateCalendarConnection(deps, caller, r),
    ),
    DeleteCalendarConnection: typedOperation(
      { ...AUDIT_ACTIONS.calendarConnectionDelete, kind: 'write' },
      (caller, r) => deleteCalendarConnection(deps, caller, r),
    ),
  };
}
