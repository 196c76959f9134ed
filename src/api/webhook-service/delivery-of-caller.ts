import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { findDelivery, type DeliveryRow } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';

/**
 * A delivery of the caller's organization: 404 DELIVERY_NOT_FOUND when no delivery has the id, 403 FORBIDDEN when it is
 * another organization's.
 */
export async function deliveryOfCaller(db: Queryable, caller: Caller, id: string): Promise<DeliveryRow> {
  const d = await findDelivery(db, id);
  if (!d) throw new ServiceError('DELIVERY_NOT_FOUND', `No webhook delivery ${id}.`);
  if (d.organizationId !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'This webhook delivery belongs to another organization.');
  return d;
}
