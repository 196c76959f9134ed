import type {
  DeleteCalendarConnectionRequest,
  DeleteCalendarConnectionResponse,
} from '../../gen/scheduling/v1/calendar_service.js';
import { CalendarConnectionPath } from '../../contract/schemas/calendar-connection.js';
import type { Database } from '../../persistence/database.js';
import { deleteCalendarConnectionRow } from '../../persistence/calendar-connection-repository.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import type { Caller } from '../../application/caller.js';
import { queueProviderTime } from '../../application/waitlist/queue-provider-time.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { pathId } from '../request-problems.js';
import { deletedCalendarConnectionMessage } from '../messages/calendar-connection-message.js';
import { connectionOfCaller } from './connection-of-caller.js';

/** What DeleteCalendarConnection uses. */
export interface DeleteCalendarConnectionDeps {
  db: Database;
  clock: () => Date;
}

/**
 * DeleteCalendarConnection: removes a connection of the caller's organization (404, 403) and answers it as it was with
 * `deleted` true. Bumps the provider graph version, queues the provider's time for the waitlist (its busy overrides
 * and feed go with it) and is audited as `calendar_connection.delete`, in one transaction.
 */
export async function deleteCalendarConnection(
  deps: DeleteCalendarConnectionDeps,
  caller: Caller,
  request: DeleteCalendarConnectionRequest,
): Promise<DeleteCalendarConnectionResponse> {
  const id = pathId(CalendarConnectionPath.shape.id, request.id);
  await connectionOfCaller(deps.db, caller, id);
  const now = deps.clock();
  const deleted = await deps.db.transaction(async (tx) => {
    const cur = await connectionOfCaller(tx, caller, id, { forUpdate: true });
    await deleteCalendarConnectionRow(tx, id);
    await bumpGraphVersion(tx, caller.organizationId);
    // Its busy overrides and external calendar go with it: time may free for the waitlist.
    await queueProviderTime(tx, { ...caller, providerId: cur.providerId, now });
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.calendarConnectionDelete,
      resourceId: id,
      before: cur,
      after: null,
    });
    return cur;
  });
  return { deletedCalendarConnection: deletedCalendarConnectionMessage(deleted) };
}
