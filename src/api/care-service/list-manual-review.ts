import { ManualReviewStatus as ManualReviewStatusMessage } from '../../gen/scheduling/v1/resources.js';
import type { ListManualReviewRequest, ListManualReviewResponse } from '../../gen/scheduling/v1/care_service.js';
import type { Database } from '../../persistence/database.js';
import { listManualReviewEntries, type ManualReviewStatus } from '../../persistence/manual-review-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { MANUAL_REVIEW_STATUS_MESSAGE, manualReviewMessage } from '../messages/care-messages.js';

const STATUS_OF = new Map<ManualReviewStatusMessage, ManualReviewStatus>(
  Object.entries(MANUAL_REVIEW_STATUS_MESSAGE).map(([rest, message]) => [message, rest as ManualReviewStatus]),
);

/** What ListManualReview uses. */
export interface ListManualReviewDeps {
  db: Database;
}

/** ListManualReview: the providers a resolution could not judge for lack of data, `open` ones unless `status` says. */
export async function listManualReview(
  deps: ListManualReviewDeps,
  caller: Caller,
  request: ListManualReviewRequest,
): Promise<ListManualReviewResponse> {
  const problems = new RequestProblems();
  const asked = request.manualReviewStatus ?? ManualReviewStatusMessage.MANUAL_REVIEW_STATUS_UNSPECIFIED;
  let status: ManualReviewStatus = 'open';
  if (asked !== ManualReviewStatusMessage.MANUAL_REVIEW_STATUS_UNSPECIFIED) {
    const known = STATUS_OF.get(asked);
    if (known === undefined) problems.add('status', 'Invalid option: expected one of "open"|"resolved"');
    else status = known;
  }
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listManualReviewEntries(
    deps.db,
    { organizationId: caller.organizationId, status },
    { after: paging.position() ?? '', limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (e) => e.providerId, manualReviewMessage);
}
