import type {
  ReplayWebhookDeliveryRequest,
  ReplayWebhookDeliveryResponse,
} from '../../gen/scheduling/v1/webhook_service.js';
import { DeliveryPath } from '../../contract/schemas/webhook.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { deliverNow, type SendDeps } from '../../application/webhooks/attempt-delivery.js';
import { pathId } from '../request-problems.js';
import { replayableDelivery, type ReplayableDeps } from './replayable-delivery.js';

/** What ReplayWebhookDelivery uses: the replay checks' reads and an attempt's needs. */
export type ReplayWebhookDeliveryDeps = ReplayableDeps & SendDeps;

/**
 * ReplayWebhookDelivery (live key, plan launch or higher): sends a delivery's event again now, within the call, as
 * its next attempt (numbered after the last one), and answers the receiver's answer. 404 DELIVERY_NOT_FOUND, 403
 * FORBIDDEN (another organization's), 422 DELIVERY_NOT_REPLAYABLE (suppressed), 409 DELIVERY_IN_PROGRESS (a sender
 * holds it). Audited as `webhook.delivery.replay` with `queued: false`.
 */
export async function replayWebhookDelivery(
  deps: ReplayWebhookDeliveryDeps,
  caller: Caller,
  request: ReplayWebhookDeliveryRequest,
): Promise<ReplayWebhookDeliveryResponse> {
  const id = pathId(DeliveryPath.shape.id, request.id);
  await replayableDelivery(deps, caller, id);
  const r = await deliverNow(deps, caller.organizationId, id);
  await recordAudit(deps.db, caller, deps.clock(), {
    ...AUDIT_ACTIONS.webhookDeliveryReplay,
    resourceId: id,
    after: { attempt: r.attempt, delivered: r.delivered, statusCode: r.statusCode, queued: false },
  });
  return {
    replayResult: {
      delivered: r.delivered,
      statusCode: r.statusCode ?? undefined,
      latencyMs: r.latencyMs,
      replayedAt: new Date(r.attemptedAt),
      attempt: r.attempt,
    },
  };
}
