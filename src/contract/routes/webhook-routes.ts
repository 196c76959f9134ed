import {
  DeliveryDetail,
  DeliveryList,
  DeliveryPath,
  ListDeliveriesQuery,
  QueuedReplay,
  QueuedReplayPath,
  ReplayResult,
  UpdatedWebhook,
  UpdateWebhookBody,
  Webhook,
  WebhookTestResult,
} from '../schemas/webhook.js';
import type { RouteSpec } from '../route.js';

/**
 * Webhook routes (SPEC 4.6, CONTRACT part 6). `/api/v2/webhooks/deliveries/:id/replay` (five segments) and
 * `/api/v2/webhooks/:deliveryId/replay` (four) never match the same path; `POST /api/v2/webhooks/deliveries/replay`
 * is the queued replay of a delivery with the id `deliveries`, which no delivery has (ids start with a prefix and `_`).
 */
export const webhookRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/webhooks',
    service: 'WebhookService',
    rpc: 'GetWebhook',
    tag: 'webhooks',
    summary: 'Read the organization’s webhook configuration (never its secret; test or live key).',
    description:
      'Answers the URL, event types and whether the webhook is active; 404 WEBHOOK_NOT_CONFIGURED before the first PUT.',
    response: Webhook,
    errors: ['WEBHOOK_NOT_CONFIGURED'],
  },
  {
    method: 'PUT',
    path: '/api/v2/webhooks',
    service: 'WebhookService',
    rpc: 'UpdateWebhook',
    tag: 'webhooks',
    summary:
      'Set up or replace the organization’s webhook (live key only: a test key may read the configuration but not change it, 403 LIVE_KEY_REQUIRED). The answer carries `secret` on the first set-up and when `rotateSecret` is true; after a rotation the previous secret keeps signing beside the new one for 24 hours. `url` must be https and reach a public address (400 VALIDATION_ERROR on `url` otherwise; `WEBHOOK_ALLOW_INSECURE_URLS=1` relaxes this for development); `events` lists SPEC part 6 event types or is `["*"]`.',
    description:
      'Configures where events are delivered, signed with the Standard Webhooks scheme; one configuration serves live and test mode, so only a live key changes it.',
    body: UpdateWebhookBody,
    response: UpdatedWebhook,
    errors: ['LIVE_KEY_REQUIRED'],
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/test',
    service: 'WebhookService',
    rpc: 'TestWebhook',
    tag: 'webhooks',
    summary:
      'Send a signed `webhook.test` event to the configured URL now (live key only) and report the receiver’s answer. Nothing is recorded in the delivery log.',
    description:
      'Checks the receiver with a signed test event; needs a live key (403 LIVE_KEY_REQUIRED) and a configured webhook.',
    response: WebhookTestResult,
    errors: ['LIVE_KEY_REQUIRED', 'WEBHOOK_NOT_CONFIGURED'],
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/deliveries',
    service: 'WebhookService',
    rpc: 'ListWebhookDeliveries',
    tag: 'webhooks',
    summary:
      'List delivery records newest first as `{deliveries, total, nextCursor}`, optionally of one `status` or `event` type; `total` counts every match.',
    description: "Lists the organization's delivery records with their latest attempt; cursor pagination.",
    query: ListDeliveriesQuery,
    response: DeliveryList,
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/deliveries/:id',
    service: 'WebhookService',
    rpc: 'GetWebhookDelivery',
    tag: 'webhooks',
    summary: 'Read a delivery record with every attempt, manual replays included.',
    description: 'Answers one delivery record and its attempts, oldest first.',
    params: DeliveryPath,
    response: DeliveryDetail,
    errors: ['DELIVERY_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/deliveries/:id/replay',
    service: 'WebhookService',
    rpc: 'ReplayWebhookDelivery',
    tag: 'webhooks',
    summary:
      'Send a delivery again now (plan launch or higher, live key) as its next attempt, and report the answer. An organization plan the service does not know counts as below launch. A `suppressed` (test-mode) delivery is 422 DELIVERY_NOT_REPLAYABLE; one a sender is sending right now is 409 DELIVERY_IN_PROGRESS.',
    description: "Sends the delivery's event again at once, within the request.",
    params: DeliveryPath,
    response: ReplayResult,
    errors: [
      'PLAN_UPGRADE_REQUIRED',
      'LIVE_KEY_REQUIRED',
      'DELIVERY_NOT_FOUND',
      'WEBHOOK_NOT_CONFIGURED',
      'DELIVERY_IN_PROGRESS',
      'DELIVERY_NOT_REPLAYABLE',
    ],
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/:deliveryId/replay',
    service: 'WebhookService',
    rpc: 'QueueWebhookDeliveryReplay',
    tag: 'webhooks',
    summary:
      'Queue a delivery for a manual attempt by the dispatcher (plan launch or higher, live key); answers the number that attempt will carry. Its failure schedules no automatic retry. Same refusals as the immediate replay.',
    description: "Queues the delivery's event for the dispatcher instead of sending it in the request.",
    params: QueuedReplayPath,
    response: QueuedReplay,
    errors: [
      'PLAN_UPGRADE_REQUIRED',
      'LIVE_KEY_REQUIRED',
      'DELIVERY_NOT_FOUND',
      'DELIVERY_IN_PROGRESS',
      'DELIVERY_NOT_REPLAYABLE',
    ],
  },
];
