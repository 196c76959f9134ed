import type { DeleteServiceRequest, DeleteServiceResponse } from '../../gen/scheduling/v1/catalog_service.js';
import { ServicePath } from '../../contract/schemas/service.js';
import type { Database } from '../../persistence/database.js';
import { bumpGraphVersion } from '../../persistence/organization-repository.js';
import { removeServiceRow } from '../../persistence/service-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { pathId } from '../request-problems.js';
import { deletedServiceMessage } from '../messages/service-message.js';
import { serviceOfCaller } from './service-of-caller.js';

/** What DeleteService uses. */
export interface DeleteServiceDeps {
  db: Database;
  clock: () => Date;
}

/**
 * DeleteService: removes a service of the caller's organization (soft: bookings keep naming the row; it is no longer
 * found, listed or offered, and its slug is free again) and answers it as it was with `deleted`. Bumps the provider
 * graph version and is audited as `service.delete`, in one transaction.
 */
export async function deleteService(
  deps: DeleteServiceDeps,
  caller: Caller,
  request: DeleteServiceRequest,
): Promise<DeleteServiceResponse> {
  const id = pathId(ServicePath.shape.id, request.id);
  await serviceOfCaller(deps.db, caller, id);
  const now = deps.clock();
  const removed = await deps.db.transaction(async (tx) => {
    const cur = await serviceOfCaller(tx, caller, id, { forUpdate: true });
    await removeServiceRow(tx, id, now);
    await bumpGraphVersion(tx, caller.organizationId);
    await recordAudit(tx, caller, now, { ...AUDIT_ACTIONS.serviceDelete, resourceId: id, before: cur, after: null });
    return cur;
  });
  return { deletedService: deletedServiceMessage(removed) };
}
