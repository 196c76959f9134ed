import {
  ListEventsRequest_Mode,
  type ListEventsRequest,
  type ListEventsResponse,
} from '../../gen/scheduling/v1/event_service.js';
import { ListEventsQuery } from '../../contract/schemas/event.js';
import type { Database } from '../../persistence/database.js';
import { listEvents as listEventRows } from '../../persistence/event-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { eventMessage } from '../messages/event-message.js';
import { retainedSince } from './retained-since.js';

/** What ListEvents uses. */
export interface ListEventsDeps {
  db: Database;
  clock: () => Date;
}

const MODES = ['live', 'test'] as const;

/** The key mode a request names; UNSPECIFIED: not given. */
const MODE_OF: Partial<Record<ListEventsRequest_Mode, (typeof MODES)[number]>> = {
  [ListEventsRequest_Mode.MODE_LIVE]: 'live',
  [ListEventsRequest_Mode.MODE_TEST]: 'test',
};

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
  const modeAsked = request.mode ?? ListEventsRequest_Mode.MODE_UNSPECIFIED;
  const mode = MODE_OF[modeAsked];
  if (modeAsked !== ListEventsRequest_Mode.MODE_UNSPECIFIED && mode === undefined)
    problems.add('mode', `Invalid option: expected one of ${MODES.map((m) => `"${m}"`).join('|')}`);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listEventRows(
    deps.db,
    { organizationId: caller.organizationId, notBefore: retainedSince(deps.clock()), type, since: request.since, mode },
    { afterId: paging.position(), limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (row) => row.id, eventMessage);
}
