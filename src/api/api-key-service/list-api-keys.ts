import type { ListApiKeysRequest, ListApiKeysResponse } from '../../gen/scheduling/v1/api_key_service.js';
import type { Database } from '../../persistence/database.js';
import { listApiKeys as listApiKeyRows } from '../../persistence/api-key-repository.js';
import { requirePlatformKey } from '../../application/authenticate.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { apiKeyMessage } from '../messages/api-key-message.js';

/** What ListApiKeys uses. */
export interface ListApiKeysDeps {
  db: Database;
}

/** ListApiKeys (platform key): the platform's keys in id order, a page at a time, never their secrets. */
export async function listApiKeys(
  deps: ListApiKeysDeps,
  caller: Caller,
  request: ListApiKeysRequest,
): Promise<ListApiKeysResponse> {
  requirePlatformKey(caller);
  const problems = new RequestProblems();
  const paging = readPageRequest(problems, request);
  problems.throwIfAny();
  const rows = await listApiKeyRows(deps.db, caller.platformId, {
    after: paging.position() ?? '',
    limit: paging.size + 1,
  });
  return pageMessage(rows, paging.size, (k) => k.id, apiKeyMessage);
}
