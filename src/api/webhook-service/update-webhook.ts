import { ServiceError } from '../../errors/service-error.js';
import type { UpdateWebhookRequest, UpdateWebhookResponse } from '../../gen/scheduling/v1/webhook_service.js';
import { UpdateWebhookBody } from '../../contract/schemas/webhook.js';
import type { Config } from '../../config/load-config.js';
import type { Database } from '../../persistence/database.js';
import { findWebhook, lockWebhookSetup, upsertWebhook, type WebhookRow } from '../../persistence/webhook-repository.js';
import type { Caller } from '../../application/caller.js';
import { recordAudit } from '../../application/record-audit.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { checkOutboundUrl } from '../../application/outbound/check-outbound-url.js';
import type { OutboundLookup } from '../../application/outbound/guarded-lookup.js';
import { newWebhookSecret } from '../../application/webhooks/webhook-signature.js';
import { RequestProblems, given } from '../request-problems.js';
import { webhookMessage } from '../messages/webhook-message.js';

/** What UpdateWebhook uses. */
export interface UpdateWebhookDeps {
  db: Database;
  clock: () => Date;
  config: Pick<Config, 'outboundAllowInsecureUrls'>;
  /** DNS resolution of the URL's host (default dns.lookup). */
  outboundLookup?: OutboundLookup;
}

/** How long a rotated-out secret keeps signing alongside the new one. */
const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

const RULES = UpdateWebhookBody.shape;

/** The configuration as the audit log records it: never a secret. */
function auditView(w: WebhookRow) {
  return { url: w.url, events: w.events, active: w.active, createdAt: w.createdAt.toISOString() };
}

/**
 * UpdateWebhook (live key only: a test key may read the configuration but not change it, 403 LIVE_KEY_REQUIRED): sets
 * up or replaces the organization's webhook. The answer carries `secret` on the first set-up and when `rotate_secret`
 * is true; after a rotation the previous secret keeps signing beside the new one for 24 hours. `url` must be https and
 * reach a public address (400 VALIDATION_ERROR on `url`; WEBHOOK_ALLOW_INSECURE_URLS relaxes this); `events` lists
 * SPEC part 6 event types (repeats kept once) or is `["*"]`. Audited as `webhook.update`, without the secret.
 */
export async function updateWebhook(
  deps: UpdateWebhookDeps,
  caller: Caller,
  request: UpdateWebhookRequest,
): Promise<UpdateWebhookResponse> {
  const problems = new RequestProblems();
  const url = problems.check('url', RULES.url, given(request.url));
  // A repeated field cannot tell a list left out from an empty one: both are judged as the empty list.
  const events = problems.check('events', RULES.events, request.events ?? []);
  const active = problems.check('active', RULES.active, request.active);
  const rotateSecret = problems.check('rotateSecret', RULES.rotateSecret, request.rotateSecret);
  problems.throwIfAny();
  // Test keys may read the configuration but not change it (CONTRACT part 2): it is the live one too.
  if (caller.mode !== 'live')
    throw new ServiceError(
      'LIVE_KEY_REQUIRED',
      'Test keys may read the webhook configuration but not change it: use a service_live_ key.',
    );
  // Outside the transaction: resolving the host may take a while and needs no lock.
  await checkOutboundUrl(url!, {
    field: 'url',
    allowInsecure: deps.config.outboundAllowInsecureUrls,
    lookup: deps.outboundLookup,
  });
  const eventTypes = [...new Set(events!)];
  const now = deps.clock();
  return deps.db.transaction(async (tx) => {
    // Serializes set-ups of one organization, so two first updates at once cannot both hand out a secret.
    await lockWebhookSetup(tx, caller.organizationId);
    const before = await findWebhook(tx, caller.organizationId, { forUpdate: true });
    const newSecret = before === undefined || rotateSecret === true ? newWebhookSecret() : undefined;
    const stored = await upsertWebhook(
      tx,
      {
        organizationId: caller.organizationId,
        platformId: caller.platformId,
        url: url!,
        events: eventTypes,
        active: active ?? true,
        secret: newSecret ?? before!.secret,
        previousSecret: before && newSecret ? before.secret : (before?.previousSecret ?? null),
        previousSecretExpiresAt:
          before && newSecret
            ? new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS)
            : (before?.previousSecretExpiresAt ?? null),
      },
      now,
    );
    // The secret never enters the audit log: only whether one was made.
    await recordAudit(tx, caller, now, {
      ...AUDIT_ACTIONS.webhookUpdate,
      resourceId: caller.organizationId,
      before: before ? auditView(before) : null,
      after: { ...auditView(stored), secretIssued: newSecret !== undefined },
    });
    return { updatedWebhook: { ...webhookMessage(stored), secret: newSecret } };
  });
}
