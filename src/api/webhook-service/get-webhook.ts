import type { GetWebhookRequest, GetWebhookResponse } from '../../gen/scheduling/v1/webhook_service.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { webhookMessage } from '../messages/webhook-message.js';
import { configuredWebhook } from './configured-webhook.js';

/** What GetWebhook uses. */
export interface GetWebhookDeps {
  db: Database;
}

/**
 * GetWebhook (test or live key): the organization's webhook configuration, never its secret; 404
 * WEBHOOK_NOT_CONFIGURED before the first set-up.
 */
export async function getWebhook(
  deps: GetWebhookDeps,
  caller: Caller,
  _request: GetWebhookRequest,
): Promise<GetWebhookResponse> {
  return { webhook: webhookMessage(await configuredWebhook(deps.db, caller)) };
}
