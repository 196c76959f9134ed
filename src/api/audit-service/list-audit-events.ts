import type { ListAuditEventsRequest, ListAuditEventsResponse } from '../../gen/scheduling/v1/audit_service.js';
import { ListAuditEventsQuery } from '../../contract/schemas/audit-event.js';
import type { Database } from '../../persistence/database.js';
import { listAuditEventRows } from '../../persistence/audit-log.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { auditEventMessage } from '../messages/audit-event-message.js';
import { auditListPosition } from './audit-list-position.js';

/** What ListAuditEvents uses. */
export interface ListAuditEventsDeps {
  db: Database;
}

/**
 * ListAuditEvents: the caller's organization's audit events newest first by request time (keyset on ("timestamp", id),
 * CONTRACT part 7), a page at a time, optionally of one action, resource type or resource id.
 */
export async function listAuditEvents(
  deps: ListAuditEventsDeps,
  caller: Caller,
  request: ListAuditEventsRequest,
): Promise<ListAuditEventsResponse> {
  const problems = new RequestProblems();
  const action = problems.check('action', ListAuditEventsQuery.shape.action, request.action);
  const resourceType = problems.check('resource_type', ListAuditEventsQuery.shape.resource_type, request.resourceType);
  const resourceId = problems.check('resource_id', ListAuditEventsQuery.shape.resource_id, request.resourceId);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listAuditEventRows(
    deps.db,
    { organizationId: caller.organizationId, action, resourceType, resourceId },
    { after: auditListPosition(paging.position()), limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (row) => `${row.position.timestamp}|${row.position.id}`, auditEventMessage);
}
