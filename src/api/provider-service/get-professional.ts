import type { GetProfessionalRequest, GetProfessionalResponse } from '../../gen/scheduling/v1/provider_service.js';
import { ProviderPath } from '../../contract/schemas/provider.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { providerOfCaller } from '../../application/provider-of-caller.js';
import { pathId } from '../request-problems.js';
import { professionalMessage } from '../messages/provider-message.js';

/** What GetProfessional uses. */
export interface GetProfessionalDeps {
  db: Database;
}

/** GetProfessional: the v1 view of one provider of the caller's organization, refused as GetProvider refuses. */
export async function getProfessional(
  deps: GetProfessionalDeps,
  caller: Caller,
  request: GetProfessionalRequest,
): Promise<GetProfessionalResponse> {
  const id = pathId(ProviderPath.shape.id, request.id);
  return { professional: professionalMessage(await providerOfCaller(deps.db, caller, id)) };
}
