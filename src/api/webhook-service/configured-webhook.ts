import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { findWebhook, type WebhookRow } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';

/** The configuration of the caller's organization, or 404 WEBHOOK_NOT_CONFIGURED before its first set-up. */
export async function configuredWebhook(db: Queryable, caller: Caller): Promise<WebhookRow> {
  const w = await findWebhook(db, caller.organizationId);
  if (!w) throw new ServiceError('WEBHOOK_NOT_CONFIGURED');
  return w;
}
