import type { GetProviderRequest, GetProviderResponse } from '../../gen/scheduling/v1/provider_service.js';
import { ProviderPath } from '../../contract/schemas/provider.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { pathId } from '../request-problems.js';
import { providerMessage } from '../messages/provider-message.js';

/** What GetProvider uses. */
export interface GetProviderDeps {
  db: Database;
}

/** GetProvider: one provider of the caller's organization (404 PROVIDER_NOT_FOUND, 403 another organization's). */
export async function getProvider(
  deps: GetProviderDeps,
  caller: Caller,
  request: GetProviderRequest,
): Promise<GetProviderResponse> {
  const id = pathId(ProviderPath.shape.id, request.id);
  return { provider: providerMessage(await providerOfCaller(deps.db, caller, id)) };
}
