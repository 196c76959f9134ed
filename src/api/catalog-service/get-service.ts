import type { GetServiceRequest, GetServiceResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { ServicePath } from '../../contract/schemas/service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { serviceMessage } from '../messages/service-message.js';
import { serviceOfCaller } from './service-of-caller.js';

/** What GetService uses. */
export interface GetServiceDeps {
  db: Database;
}

/** GetService: one live service of the caller's organization (404 SERVICE_NOT_FOUND, 403 another organization's). */
export async function getService(
  deps: GetServiceDeps,
  caller: Caller,
  request: GetServiceRequest,
): Promise<GetServiceResponse> {
  const id = pathId(ServicePath.shape.id, request.id);
  return { service: serviceMessage(await serviceOfCaller(deps.db, caller, id)) };
}
