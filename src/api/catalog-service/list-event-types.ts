import type { ListEventTypesRequest, ListEventTypesResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { ListEventTypesQuery } from '../../contract/schemas/service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { eventTypeMessage } from '../messages/service-message.js';
import { servicePage } from './service-page.js';

/** What ListEventTypes uses. */
export interface ListEventTypesDeps {
  db: Database;
}

/** ListEventTypes: ListServices in the v1 shape (`title`, `length`), optionally of one provider, a page at a time. */
export async function listEventTypes(
  deps: ListEventTypesDeps,
  caller: Caller,
  request: ListEventTypesRequest,
): Promise<ListEventTypesResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', ListEventTypesQuery.shape.providerId, request.providerId);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const { rows, total } = await servicePage(deps.db, caller, { providerId }, paging);
  return { eventTypeList: { ...pageMessage(rows, paging.size, (s) => s.id, eventTypeMessage), total } };
}
