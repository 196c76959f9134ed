import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { getWebhook, type GetWebhookDeps } from './get-webhook.js';
import { updateWebhook, type UpdateWebhookDeps } from './update-webhook.js';
import { testWebhook, type TestWebhookDeps } from './test-webhook.js';
import { listWebhookDeliveries, type ListWebhookDeliveriesDeps } from './list-webhook-deliveries.js';
import { getWebhookDelivery, type GetWebhookDeliveryDeps } from './get-webhook-delivery.js';
import { replayWebhookDelivery, type ReplayWebhookDeliveryDeps } from './replay-webhook-delivery.js';
import { queueWebhookDeliveryReplay, type QueueWebhookDeliveryReplayDeps } from './queue-webhook-delivery-replay.js';

/** What the WebhookService RPCs use together. */
export type WebhookServiceDeps = GetWebhookDeps &
  UpdateWebhookDeps &
  TestWebhookDeps &
  ListWebhookDeliveriesDeps &
  GetWebhookDeliveryDeps &
  ReplayWebhookDeliveryDeps &
  QueueWebhookDeliveryReplayDeps;

/**
 * WebhookService (CONTRACT part 6): the organization's webhook configuration, test sends, the delivery log and
 * replays; each RPC with what it records in the audit log.
 */
export function webhookService(deps: WebhookServiceDeps): OperationTable {
  return {
    GetWebhook: typedOperation({ ...AUDIT_ACTIONS.webhookRead, kind: 'read' }, (caller, r) =>
      getWebhook(deps, caller, r),
    ),
    UpdateWebhook: typedOperation({ ...AUDIT_ACTIONS.webhookUpdate, kind: 'write' }, (caller, r) =>
      updateWebhook(deps, caller, r),
    ),
    TestWebhook: typedOperation({ ...AUDIT_ACTIONS.webhookTest, kind: 'read' }, (caller, r) =>
      testWebhook(deps, caller, r),
    ),
    ListWebhookDeliveries: typedOperation({ ...AUDIT_ACTIONS.webhookDeliveryList, kind: 'read' }, (caller, r) =>
      listWebhookDeliveries(deps, caller, r),
    ),
    GetWebhookDelivery: typedOperation({ ...AUDIT_ACTIONS.webhookDeliveryRead, kind: 'read' }, (caller, r) =>
      getWebhookDelivery(deps, caller, r),
    ),
    ReplayWebhookDelivery: typedOperation({ ...AUDIT_ACTIONS.webhookDeliveryReplay, kind: 'write' }, (caller, r) =>
      replayWebhookDelivery(deps, caller, r),
    ),
    QueueWebhookDeliveryReplay: typedOperation({ ...AUDIT_ACTIONS.webhookDeliveryReplay, kind: 'write' }, (caller, r) =>
      queueWebhookDeliveryReplay(deps, caller, r),
    ),
  };
}
