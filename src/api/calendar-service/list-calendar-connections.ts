import type {
  ListCalendarConnectionsRequest,
  ListCalendarConnectionsResponse,
} from '../../gen/scheduling/v1/calendar_service.js';
import { ListCalendarConnectionsQuery } from '../../contract/schemas/calendar-connection.js';
import type { Database } from '../../persistence/database.js';
import {
  countCalendarConnections,
  listCalendarConnectionRows,
  toCalendarConnectionView,
} from '../../persistence/calendar-connection-repository.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { RequestProblems, given } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { calendarConnectionMessage } from '../messages/calendar-connection-message.js';

/** What ListCalendarConnections uses. */
export interface ListCalendarConnectionsDeps {
  db: Database;
}

/**
 * ListCalendarConnections: the caller's organization's connections in id order, a page at a time, with their `total`;
 * `providerId` narrows it to one provider of the organization (404 unknown, 403 another organization's).
 */
export async function listCalendarConnections(
  deps: ListCalendarConnectionsDeps,
  caller: Caller,
  request: ListCalendarConnectionsRequest,
): Promise<ListCalendarConnectionsResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check(
    'providerId',
    ListCalendarConnectionsQuery.shape.providerId,
    given(request.providerId),
  );
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  if (providerId !== undefined) await providerOfCaller(deps.db, caller, providerId);
  const filter = { organizationId: caller.organizationId, providerId };
  const total = await countCalendarConnections(deps.db, filter);
  const rows = await listCalendarConnectionRows(deps.db, filter, { after: paging.position(), limit: paging.size + 1 });
  const page = pageMessage(rows.map(toCalendarConnectionView), paging.size, (c) => c.id, calendarConnectionMessage);
  return { calendarConnectionList: { ...page, total } };
}
