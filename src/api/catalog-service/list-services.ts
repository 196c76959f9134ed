import type { ListServicesRequest, ListServicesResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { ListServicesQuery } from '../../contract/schemas/service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { serviceMessage } from '../messages/service-message.js';
import { servicePage } from './service-page.js';

/** What ListServices uses. */
export interface ListServicesDeps {
  db: Database;
}

/**
 * ListServices: the organization's live services in id order, optionally of one provider or one slug, a page at a
 * time, with the count of every page (`total`).
 */
export async function listServices(
  deps: ListServicesDeps,
  caller: Caller,
  request: ListServicesRequest,
): Promise<ListServicesResponse> {
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', ListServicesQuery.shape.providerId, request.providerId);
  const slug = problems.check('slug', ListServicesQuery.shape.slug, request.slug);
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const { rows, total } = await servicePage(deps.db, caller, { providerId, slug }, paging);
  return { serviceList: { ...pageMessage(rows, paging.size, (s) => s.id, serviceMessage), total } };
}
