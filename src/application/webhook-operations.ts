import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, encodeCursor } from '../contract/pagination.js';
import { DeliveryPath, ListDeliveriesQuery, QueuedReplayPath, UpdateWebhookBody } from '../contract/schemas/webhook.js';
import { ServiceError } from '../errors/service-error.js';
import type { OrganizationCache } from './organization-cache.js';
import {
  countDeliveries,
  findDelivery,
  findWebhook,
  listAttempts,
  listDeliveries,
  lockWebhookSetup,
  queueReplay,
  upsertWebhook,
  type AttemptRow,
  type DeliveryRow,
  type WebhookRow,
} from '../persistence/webhook-repository.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { recordAudit } from './record-audit.js';
import { deliverNow, sendTestEvent } from './webhooks/attempt-delivery.js';
import { newWebhookSecret, signingSecrets } from './webhooks/webhook-signature.js';
import { checkOutboundUrl } from './outbound/check-outbound-url.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** How long a rotated-out secret keeps signing alongside the new one. */
const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/** Plans entitled to replays (CONTRACT part 6). A plan slug the service does not know is treated as not entitled. */
const REPLAY_PLANS: ReadonlySet<string> = new Set(['launch', 'scale', 'enterprise']);

/** The configuration as answered (never a secret). */
function toWebhookView(w: WebhookRow) {
  return { url: w.url, events: w.events, active: w.active, createdAt: w.createdAt.toISOString() };
}

/** A delivery record as answered (CONTRACT part 6). */
function toDeliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.eventType,
    status: d.status,
    attempt: d.attempt,
    statusCode: d.lastAttemptAt === null ? null : d.statusCode,
    latencyMs: d.lastAttemptAt === null ? null : d.latencyMs,
    timestamp: (d.lastAttemptAt ?? d.createdAt).toISOString(),
    success: d.lastAttemptAt === null ? null : d.success,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  };
}

/** An attempt as answered. */
function toAttemptView(a: AttemptRow) {
  return {
    attempt: a.attempt,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    timestamp: a.attemptedAt.toISOString(),
    success: a.success,
    manual: a.manual,
    ...(a.error !== null ? { error: a.error } : {}),
  };
}

/** WebhookService operations: the organization's webhook configuration, test sends, the delivery log and replays. */
export function createWebhookOperations(deps: AppDeps & { organizations: OrganizationCache }): OperationTable {
  /** The configuration of the caller's organization, or 404 WEBHOOK_NOT_CONFIGURED. */
  const configured = async (caller: Caller) => {
    const w = await findWebhook(deps.db, caller.organizationId);
    if (!w) throw new ServiceError('WEBHOOK_NOT_CONFIGURED');
    return w;
  };

  /** A delivery of the caller's organization: 404 DELIVERY_NOT_FOUND when unknown, 403 FORBIDDEN when another organization's. */
  const deliveryOfCaller = async (caller: Caller, id: string) => {
    const d = await findDelivery(deps.db, id);
    if (!d) throw new ServiceError('DELIVERY_NOT_FOUND', `No webhook delivery ${id}.`);
    if (d.organizationId !== caller.organizationId)
      throw new ServiceError('FORBIDDEN', 'This webhook delivery belongs to another organization.');
    return d;
  };

  /**
   * What both replays check first, in this order: a live key (test-mode deliveries are never sent), a plan of
   * `launch` or higher, the delivery (404 / 403) and that it is not `suppressed` (422 DELIVERY_NOT_REPLAYABLE).
   */
  const replayable = async (caller: Caller, id: string) => {
    if (caller.mode !== 'live')
      throw new ServiceError(
        'LIVE_KEY_REQUIRED',
        'Replays send webhooks, which test keys never do: use a service_live_ key.',
      );
    const org = await deps.organizations.find(caller.organizationId);
    const plan = String(org?.settings.plan ?? 'free');
    if (!REPLAY_PLANS.has(plan))
      throw new ServiceError(
        'PLAN_UPGRADE_REQUIRED',
        `Webhook replay needs the launch plan or higher; this organization is on "${plan}".`,
      );
    const d = await deliveryOfCaller(caller, id);
    if (d.status === 'suppressed') throw new ServiceError('DELIVERY_NOT_REPLAYABLE');
    return d;
  };

  return {
    GetWebhook: {
      audit: { ...AUDIT_ACTIONS.webhookRead, kind: 'read' },
      async handler(caller) {
        return toWebhookView(await configured(caller));
      },
    },
    UpdateWebhook: {
      audit: { ...AUDIT_ACTIONS.webhookUpdate, kind: 'write' },
      async handler(caller, input) {
        const body = parseInput(UpdateWebhookBody, input.body);
        // Test keys may read the configuration but not change it (CONTRACT part 2): it is the live one too.
        if (caller.mode !== 'live')
          throw new ServiceError(
            'LIVE_KEY_REQUIRED',
            'Test keys may read the webhook configuration but not change it: use a service_live_ key.',
          );
        // Outside the transaction: resolving the host may take a while and needs no lock.
        await checkOutboundUrl(body.url, {
          field: 'url',
          allowInsecure: deps.config.outboundAllowInsecureUrls,
          lookup: deps.outboundLookup,
        });
        const events = [...new Set(body.events)];
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          // Serializes set-ups of one organization, so two first PUTs at once cannot both hand out a secret.
          await lockWebhookSetup(tx, caller.organizationId);
          const before = await findWebhook(tx, caller.organizationId, { forUpdate: true });
          const newSecret = before === undefined || body.rotateSecret === true ? newWebhookSecret() : undefined;
          const stored = await upsertWebhook(
            tx,
            {
              organizationId: caller.organizationId,
              platformId: caller.platformId,
              url: body.url,
              events,
              active: body.active ?? true,
              secret: newSecret ?? before!.secret,
              previousSecret: before && newSecret ? before.secret : (before?.previousSecret ?? null),
              previousSecretExpiresAt:
                before && newSecret
                  ? new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS)
                  : (before?.previousSecretExpiresAt ?? null),
            },
            now,
          );
          const view = toWebhookView(stored);
          // The secret never enters the audit log: only whether one was made.
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.webhookUpdate,
            resourceId: caller.organizationId,
            before: before ? toWebhookView(before) : null,
            after: { ...view, secretIssued: newSecret !== undefined },
          });
          return newSecret ? { ...view, secret: newSecret } : view;
        });
      },
    },
    TestWebhook: {
      audit: { ...AUDIT_ACTIONS.webhookTest, kind: 'read' },
      async handler(caller) {
        if (caller.mode !== 'live')
          throw new ServiceError('LIVE_KEY_REQUIRED', 'Test keys never send webhooks: use a service_live_ key.');
        const w = await configured(caller);
        const r = await sendTestEvent(deps, {
          url: w.url,
          secrets: signingSecrets(w, deps.clock()),
          organizationId: caller.organizationId,
        });
        return { delivered: r.delivered, statusCode: r.statusCode, latencyMs: r.latencyMs };
      },
    },
    ListWebhookDeliveries: {
      audit: { ...AUDIT_ACTIONS.webhookDeliveryList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListDeliveriesQuery, input.query);
        const limit = q.limit ?? 50;
        const afterId = decodeCursor(q.cursor);
        const filter = { organizationId: caller.organizationId, status: q.status, eventType: q.event };
        const [total, rows] = await Promise.all([
          countDeliveries(deps.db, filter),
          listDeliveries(deps.db, filter, { afterId, limit: limit + 1 }),
        ]);
        const pageRows = rows.slice(0, limit);
        const last = pageRows[pageRows.length - 1];
        return {
          deliveries: pageRows.map(toDeliveryView),
          total,
          nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null,
        };
      },
    },
    GetWebhookDelivery: {
      audit: { ...AUDIT_ACTIONS.webhookDeliveryRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(DeliveryPath, input.params);
        const d = await deliveryOfCaller(caller, id);
        const attempts = await listAttempts(deps.db, caller.organizationId, d.id);
        return { ...toDeliveryView(d), attempts: attempts.map(toAttemptView) };
      },
    },
    ReplayWebhookDelivery: {
      audit: { ...AUDIT_ACTIONS.webhookDeliveryReplay, kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(DeliveryPath, input.params);
        await replayable(caller, id);
        const r = await deliverNow(deps, caller.organizationId, id);
        const replayedAt = new Date(r.attemptedAt).toISOString();
        await recordAudit(deps.db, caller, deps.clock(), {
          ...AUDIT_ACTIONS.webhookDeliveryReplay,
          resourceId: id,
          after: { attempt: r.attempt, delivered: r.delivered, statusCode: r.statusCode, queued: false },
        });
        return {
          delivered: r.delivered,
          statusCode: r.statusCode,
          latencyMs: r.latencyMs,
          replayedAt,
          attempt: r.attempt,
        };
      },
    },
    QueueWebhookDeliveryReplay: {
      audit: { ...AUDIT_ACTIONS.webhookDeliveryReplay, kind: 'write' },
      async handler(caller, input) {
        const { deliveryId } = parseInput(QueuedReplayPath, input.params);
        await replayable(caller, deliveryId);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const outcome = await queueReplay(tx, caller.organizationId, deliveryId, now);
          if (outcome.kind === 'not_found')
            throw new ServiceError('DELIVERY_NOT_FOUND', `No webhook delivery ${deliveryId}.`);
          if (outcome.kind === 'suppressed') throw new ServiceError('DELIVERY_NOT_REPLAYABLE');
          if (outcome.kind === 'in_progress') throw new ServiceError('DELIVERY_IN_PROGRESS');
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.webhookDeliveryReplay,
            resourceId: deliveryId,
            after: { attempt: outcome.attempt, queued: true },
          });
          return { deliveryId, status: 'pending' as const, attempt: outcome.attempt };
        });
      },
    },
  };
}
