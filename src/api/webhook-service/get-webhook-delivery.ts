import type { GetWebhookDeliveryRequest, GetWebhookDeliveryResponse } from '../../gen/scheduling/v1/webhook_service.js';
import { DeliveryPath } from '../../contract/schemas/webhook.js';
import type { Database } from '../../persistence/database.js';
import { listAttempts } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { deliveryDetailMessage } from '../messages/webhook-message.js';
import { deliveryOfCaller } from './delivery-of-caller.js';

/** What GetWebhookDelivery uses. */
export interface GetWebhookDeliveryDeps {
  db: Database;
}

/**
 * GetWebhookDelivery: one delivery record with every attempt, oldest first, manual replays included; 404
 * DELIVERY_NOT_FOUND when no delivery has the id, 403 FORBIDDEN when it is another organization's.
 */
export async function getWebhookDelivery(
  deps: GetWebhookDeliveryDeps,
  caller: Caller,
  request: GetWebhookDeliveryRequest,
): Promise<GetWebhookDeliveryResponse> {
  const id = pathId(DeliveryPath.shape.id, request.id);
  const d = await deliveryOfCaller(deps.db, caller, id);
  const attempts = await listAttempts(deps.db, caller.organizationId, d.id);
  return { deliveryDetail: deliveryDetailMessage(d, attempts) };
}
