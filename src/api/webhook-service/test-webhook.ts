import { ServiceError } from '../../errors/service-error.js';
import type { TestWebhookRequest, TestWebhookResponse } from '../../gen/scheduling/v1/webhook_service.js';
import type { Caller } from '../../application/caller.js';
import { sendTestEvent, type SendDeps } from '../../application/webhooks/attempt-delivery.js';
import { signingSecrets } from '../../application/webhooks/webhook-signature.js';
import { configuredWebhook } from './configured-webhook.js';

/** What TestWebhook uses: the guarded outbound client's settings and the store of the configuration. */
export type TestWebhookDeps = SendDeps;

/**
 * TestWebhook (live key only, 403 LIVE_KEY_REQUIRED): sends a signed `webhook.test` event to the configured URL now,
 * through the outbound guard, and answers the receiver's status and the latency; nothing is recorded in the delivery
 * log. 404 WEBHOOK_NOT_CONFIGURED before the first set-up.
 */
export async function testWebhook(
  deps: TestWebhookDeps,
  caller: Caller,
  _request: TestWebhookRequest,
): Promise<TestWebhookResponse> {
  if (caller.mode !== 'live')
    throw new ServiceError('LIVE_KEY_REQUIRED', 'Test keys never send webhooks: use a service_live_ key.');
  const w = await configuredWebhook(deps.db, caller);
  const r = await sendTestEvent(deps, {
    url: w.url,
    secrets: signingSecrets(w, deps.clock()),
    organizationId: caller.organizationId,
  });
  return {
    webhookTestResult: { delivered: r.delivered, statusCode: r.statusCode ?? undefined, latencyMs: r.latencyMs },
  };
}
