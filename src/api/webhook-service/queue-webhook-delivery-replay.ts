import { ServiceError } from '../../errors/service-error.js';
import type {
  QueueWebhookDeliveryReplayRequest,
  QueueWebhookDeliveryReplayResponse,
} from '../../gen/scheduling/v1/webhook_service.js';
import { QueuedReplayPath } from '../../contract/schemas/webhook.js';
import type { Database } from '../../persistence/database.js';
import { queueReplay } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { RequestProblems, given } from '../request-problems.js';
import { replayableDelivery, type ReplayableDeps } from './replayable-delivery.js';

/** What QueueWebhookDeliveryReplay uses. */
export type QueueWebhookDeliveryReplayDeps = ReplayableDeps & {
  db: Database;
  clock: () => Date;
};

/**
 * QueueWebhookDeliveryReplay (live key, plan launch or higher): queues a delivery for a manual attempt by the
 * dispatcher and answers the number that attempt will carry; its failure schedules no automatic retry. The same
 * refusals as the immediate replay. Audited as `webhook.delivery.replay` with `queued: true`.
 */
export async function queueWebhookDeliveryReplay(
  deps: QueueWebhookDeliveryReplayDeps,
  caller: Caller,
  request: QueueWebhookDeliveryReplayRequest,
): Promise<QueueWebhookDeliveryReplayResponse> {
  // The path parameter is named `deliveryId` on this route (pathId names `id`).
  const problems = new RequestProblems();
  const deliveryId = problems.check('deliveryId', QueuedReplayPath.shape.deliveryId, given(request.deliveryId));
  problems.throwIfAny();
  await replayableDelivery(deps, caller, deliveryId!);
  const now = deps.clock();
  return deps.db.transaction(async (tx) => {
    const outcome = await queueReplay(tx, caller.organizationId, deliveryId!, now);
    if (outcome.kind === 'not_found')
      throw new ServiceError('DELIVERY_NOT_FOUND', `No webhook delivery ${deliveryId}.`);
    if (outcome.kind === 'suppressed') throw new ServiceError('DELIVERY_NOT_REPLAYABLE');
    if (outcome.kind === 'in_progress') throw new ServiceError('DELIVERY_IN_PROGRESS');
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.webhookDeliveryReplay,
      resourceId: deliveryId!,
      after: { attempt: outcome.attempt, queued: true },
    });
    return { queuedReplay: { deliveryId, status: 'pending', attempt: outcome.attempt } };
  });
}
