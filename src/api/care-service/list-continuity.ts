import type { ListContinuityRequest, ListContinuityResponse } from '../../gen/scheduling/v1/care_service.js';
import { ListContinuityQuery } from '../../contract/schemas/care.js';
import type { Database } from '../../persistence/database.js';
import { listContinuityRecords } from '../../persistence/continuity-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems, given } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { continuityMessage } from '../messages/care-messages.js';

/** What ListContinuity uses. */
export interface ListContinuityDeps {
  db: Database;
}

/** ListContinuity: the continuity records of one client (`client_ref`, required) in the caller's organization. */
export async function listContinuity(
  deps: ListContinuityDeps,
  caller: Caller,
  request: ListContinuityRequest,
): Promise<ListContinuityResponse> {
  const problems = new RequestProblems();
  const clientRef = problems.check('clientRef', ListContinuityQuery.shape.clientRef, given(request.clientRef));
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listContinuityRecords(
    deps.db,
    { organizationId: caller.organizationId, clientRef: clientRef! },
    { after: paging.position() ?? '', limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (c) => c.id, continuityMessage);
}
