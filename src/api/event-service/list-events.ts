import type { ListEventsRequest, ListEventsResponse } from '../../gen/scheduling/v1/event_service.js';
import { KeyMode } from '../../gen/scheduling/v1/resources.js';
import { ListEventsQuery } from '../../contract/schemas/event.js';
import type { Database } from '../../persistence/database.js';
import { listEvents as listEventRows } from '../../persistence/event-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { eventMessage } from '../messages/event-message.js';
import { keyModeOfMessage } from '../messages/api-key-message.js';
import { retainedSince } from './retained-since.js';

/** What ListEvents uses. */
export interface ListEventsDeps {
  db: Database;
  clock: () => Date;
}

/**
 * ListEvents: the caller's organization's events of the last 30 days, newest first (keyset on (created_at, id)), a
 * page at a time, optionally of one `type`, from `since` on, or of one key `mode`; either key mode reads every event of
 * its organization.
 */
export async function listEvents(
  deps: ListEventsDeps,
  caller: Caller,
  request: ListEventsRequest,
): Promise<ListEventsResponse> {
  const problems = new RequestProblems();
  const type = problems.check('type', ListEventsQuery.shape.type, request.type);
  const modeAsked = request.keyMode ?? KeyMode.KEY_MODE_UNSPECIFIED;
  const mode = keyModeOfMessage(modeAsked);
  if (modeAsked !== KeyMode.KEY_MODE_UNSPECIFIED && mode === undefined)
    problems.check('mode', ListEventsQuery.shape.mode, modeAsked);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listEventRows(
    deps.db,
    { organizationId: caller.organizationId, notBefore: retainedSince(deps.clock()), type, since: request.since, mode },
    { afterId: paging.position(), limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (row) => row.id, eventMessage);
}
