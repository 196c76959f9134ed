import type {
  ListOrganizationsRequest,
  ListOrganizationsResponse,
} from '../../gen/scheduling/v1/organization_service.js';
import type { Database } from '../../persistence/database.js';
import { listOrganizations as listOrganizationRows } from '../../persistence/organization-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { organizationMessage } from '../messages/organization-message.js';

/** What ListOrganizations uses. */
export interface ListOrganizationsDeps {
  db: Database;
}

/**
 * ListOrganizations: the organizations the key may see in id order, a page at a time — a platform key its platform's,
 * an organization key its own.
 */
export async function listOrganizations(
  deps: ListOrganizationsDeps,
  caller: Caller,
  request: ListOrganizationsRequest,
): Promise<ListOrganizationsResponse> {
  const problems = new RequestProblems();
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listOrganizationRows(
    deps.db,
    caller.isPlatformKey ? { platformId: caller.platformId } : { organizationId: caller.organizationId },
    { after: paging.position() ?? '', limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, (o) => o.id, organizationMessage);
}
