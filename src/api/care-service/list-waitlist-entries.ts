import { WaitlistStatus as WaitlistStatusMessage } from '../../gen/scheduling/v1/resources.js';
import type { ListWaitlistEntriesRequest, ListWaitlistEntriesResponse } from '../../gen/scheduling/v1/care_service.js';
import type { Database } from '../../persistence/database.js';
import {
  listWaitlistEntries as listWaitlistEntryRows,
  type WaitlistEntryStatus,
} from '../../persistence/waitlist-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { WAITLIST_STATUS_MESSAGE, waitlistEntryMessage } from '../messages/care-messages.js';

const STATUS_OF = new Map<WaitlistStatusMessage, WaitlistEntryStatus>(
  Object.entries(WAITLIST_STATUS_MESSAGE).map(([rest, message]) => [message, rest as WaitlistEntryStatus]),
);

/** What ListWaitlistEntries uses. */
export interface ListWaitlistEntriesDeps {
  db: Database;
}

/** ListWaitlistEntries: the organization's waitlist entries, oldest first, a page at a time; `status` filters. */
export async function listWaitlistEntries(
  deps: ListWaitlistEntriesDeps,
  caller: Caller,
  request: ListWaitlistEntriesRequest,
): Promise<ListWaitlistEntriesResponse> {
  const problems = new RequestProblems();
  const asked = request.waitlistStatus ?? WaitlistStatusMessage.WAITLIST_STATUS_UNSPECIFIED;
  let status: WaitlistEntryStatus | undefined;
  if (asked !== WaitlistStatusMessage.WAITLIST_STATUS_UNSPECIFIED) {
    status = STATUS_OF.get(asked);
    if (status === undefined)
      problems.add('status', 'Invalid option: expected one of "waiting"|"offered"|"booked"|"cancelled"');
  }
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listWaitlistEntryRows(
    deps.db,
    { organizationId: caller.organizationId, status },
    { after: paging.position() ?? '', limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (w) => w.id, waitlistEntryMessage);
}
