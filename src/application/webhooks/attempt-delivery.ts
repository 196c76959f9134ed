import { ServiceError } from '../../errors/service-error.js';
import { EVENT_API_VERSION, eventEnvelope } from '../../persistence/event-outbox.js';
import { newId, randomHex } from '../../persistence/new-id.js';
import {
  leaseDeliveryForReplay,
  recordAttempt,
  releaseLease,
  type ClaimedDelivery,
} from '../../persistence/webhook-delivery-queue.js';
import type { AppDeps } from '../app-deps.js';
import { afterAttempt, type DeliveryAfter } from '../../domain/webhooks/delivery-schedule.js';
import { createWebhookPoster, type PostResult, type PostWebhook } from './post-webhook.js';
import { signatureHeaders, signingSecrets } from './webhook-signature.js';
import type { OutboundLookup } from '../outbound/guarded-lookup.js';
import { tracedPost } from './traced-post.js';

/** How long a sender holds a delivery: longer than the 10 s request timeout plus recording. */
export const DELIVERY_LEASE_MS = 30_000;

/** What attemptDelivery needs. */
export type AttemptDeps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'tracing'> & {
  metrics?: Pick<AppDeps['metrics'], 'webhookAttempts'>;
};

/** What a send asked for through the API uses (a replay, a test event): an attempt's needs and the outbound DNS. */
export type SendDeps = AttemptDeps & { outboundLookup?: OutboundLookup };

/** The outcome of one attempt. */
export interface AttemptOutcome {
  result: PostResult;
  success: boolean;
  attemptedAt: Date;
  after: DeliveryAfter;
  /** False when the lease was lost meanwhile (another sender took the delivery over): nothing was recorded. */
  recorded: boolean;
}

/** Signs and posts a body; the envelope id is the webhook-id. */
async function signedPost(
  post: PostWebhook,
  url: string,
  id: string,
  body: string,
  secrets: string[],
  now: Date,
): Promise<PostResult> {
  const headers = signatureHeaders({ id, timestamp: Math.floor(now.getTime() / 1000), rawBody: body, secrets });
  return post(url, body, headers);
}

/**
 * Makes one attempt of a claimed delivery: the event's envelope with this attempt's number, signed with the current
 * secrets, posted through the guard; then records it and moves the delivery on its schedule (only while the lease
 * still holds). With tracing, the attempt is a `webhook delivery` span (a trace of its own when a worker makes it, the
 * replay's child when a replay does) and its POST carries `traceparent` to the receiver.
 */
export function attemptDelivery(deps: AttemptDeps, post: PostWebhook, d: ClaimedDelivery): Promise<AttemptOutcome> {
  const tracing = deps.tracing;
  if (!tracing) return attempt(deps, post, d);
  return tracing.inSpan(
    'webhook delivery',
    {
      attributes: {
        'scheduling.organization_id': d.organizationId,
        'webhook.delivery_id': d.id,
        'webhook.attempt': d.attempt,
        'webhook.event_type': d.event.type,
        'webhook.event_id': d.event.id,
      },
    },
    async (span) => {
      const out = await attempt(deps, tracedPost(post, tracing), d);
      span.setAttribute('webhook.outcome', out.success ? 'delivered' : 'failed');
      span.setAttribute('webhook.recorded', out.recorded);
      return out;
    },
  );
}

/** One attempt of attemptDelivery, untraced. */
async function attempt(deps: AttemptDeps, post: PostWebhook, d: ClaimedDelivery): Promise<AttemptOutcome> {
  const attemptedAt = deps.clock();
  const body = JSON.stringify(eventEnvelope(d.event, d.attempt));
  const result = await signedPost(post, d.url, d.event.id, body, signingSecrets(d, attemptedAt), attemptedAt);
  const success = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  deps.metrics?.webhookAttempts.inc({
    outcome: success ? 'delivered' : result.statusCode === null ? 'error' : 'failed',
  });
  const after = afterAttempt(
    { status: d.status, automaticAttempts: d.automaticAttempts },
    { success, manual: d.manual, at: deps.clock() },
    deps.config.webhookRetryDelaysSeconds,
  );
  const attempt = {
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    success,
    error: result.error,
    attemptedAt,
  };
  const recorded = await recordWithRetries(() => recordAttempt(deps.db, d, attempt, after));
  return { result, success, attemptedAt, after, recorded };
}

/** Pauses before each new try of recording an attempt that was made (milliseconds). */
const RECORD_RETRY_DELAYS_MS = [100, 400, 1500];

/**
 * Records an attempt that was made, trying again after a failure (a connection the pool kept across a PostgreSQL
 * restart fails once): the receiver has it, and an unrecorded attempt is sent again once its lease runs out. A try
 * that committed before its answer was lost makes the next one find the lease gone (not recorded twice).
 */
async function recordWithRetries(record: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; ; i++) {
    try {
      return await record();
    } catch (err) {
      const pause = RECORD_RETRY_DELAYS_MS[i];
      if (pause === undefined) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/**
 * Sync replay: a manual attempt of one of the organization's deliveries, made now and numbered after the last one,
 * recorded like any attempt. Success makes it `delivered`; a failure leaves it `dead_lettered` once the automatic
 * attempts are spent, else `failed` on its automatic schedule. Throws DELIVERY_NOT_FOUND (unknown id or another
 * organization's) and DELIVERY_IN_PROGRESS while a sender is attempting it.
 */
export async function deliverNow(
  deps: SendDeps,
  organizationId: string,
  deliveryId: string,
): Promise<{ delivered: boolean; statusCode: number | null; latencyMs: number; attempt: number; attemptedAt: Date }> {
  const leaseToken = randomHex(12);
  const claimed = await leaseDeliveryForReplay(deps.db, organizationId, deliveryId, deps.clock(), {
    leaseMs: DELIVERY_LEASE_MS,
    leaseToken,
  });
  if (claimed === 'missing')
    throw new ServiceError('DELIVERY_NOT_FOUND', `No webhook delivery ${deliveryId} in this organization.`);
  if (claimed === 'leased')
    throw new ServiceError(
      'DELIVERY_IN_PROGRESS',
      `Delivery ${deliveryId} is being sent right now; retry the replay in a few seconds.`,
    );
  const poster = createWebhookPoster({
    allowInsecure: deps.config.outboundAllowInsecureUrls,
    ...(deps.outboundLookup ? { lookup: deps.outboundLookup } : {}),
  });
  try {
    const out = await attemptDelivery(deps, poster.post, claimed);
    return {
      delivered: out.success,
      statusCode: out.result.statusCode,
      latencyMs: out.result.latencyMs,
      attempt: claimed.attempt,
      attemptedAt: out.attemptedAt,
    };
  } catch (err) {
    await releaseLease(deps.db, claimed).catch(() => undefined);
    throw err;
  } finally {
    poster.close();
  }
}

/**
 * POST /webhooks/test: sends a signed `webhook.test` envelope (a fresh `evt_` id, data `{message}`) to `target.url`
 * through the same guard; nothing is recorded.
 */
export async function sendTestEvent(
  deps: SendDeps,
  target: { url: string; secrets: string[]; organizationId: string },
): Promise<{ delivered: boolean; statusCode: number | null; latencyMs: number }> {
  const now = deps.clock();
  const id = newId('evt', now.getTime());
  const body = JSON.stringify({
    id,
    type: 'webhook.test',
    apiVersion: EVENT_API_VERSION,
    createdAt: now.toISOString(),
    organizationId: target.organizationId,
    attempt: 1,
    data: { message: 'Test delivery' },
  });
  const poster = createWebhookPoster({
    allowInsecure: deps.config.outboundAllowInsecureUrls,
    ...(deps.outboundLookup ? { lookup: deps.outboundLookup } : {}),
  });
  const post = deps.tracing ? tracedPost(poster.post, deps.tracing) : poster.post;
  try {
    const r = await signedPost(post, target.url, id, body, target.secrets, now);
    return {
      delivered: r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300,
      statusCode: r.statusCode,
      latencyMs: r.latencyMs,
    };
  } finally {
    poster.close();
  }
}
