import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** A webhooks row: an organization's configuration with its signing secrets. */
export interface WebhookRow {
  organizationId: string;
  platformId: string;
  url: string;
  events: string[];
  active: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Maps a webhooks row. */
function toWebhookRow(r: Record<string, any>): WebhookRow {
  return {
    organizationId: r.organization_id,
    platformId: r.platform_id,
    url: r.url,
    events: r.events,
    active: r.active,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Reads an organization's webhook configuration, or undefined before its first set-up. */
export async function findWebhook(
  db: Queryable,
  organizationId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<WebhookRow | undefined> {
  const r = await db.query(`SELECT * FROM webhooks WHERE organization_id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [
    organizationId,
  ]);
  return r.rows[0] ? toWebhookRow(r.rows[0]) : undefined;
}

/** Inserts or replaces an organization's configuration (created_at kept on replace); answers the stored row. */
export async function upsertWebhook(
  tx: Queryable,
  w: Omit<WebhookRow, 'createdAt' | 'updatedAt'>,
  now: Date,
): Promise<WebhookRow> {
  const r = await tx.query(
    `INSERT INTO webhooks (organization_id, platform_id, url, events, active, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (organization_id) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events, active = EXCLUDED.active, secret = EXCLUDED.secret,
       previous_secret = EXCLUDED.previous_secret, previous_secret_expires_at = EXCLUDED.previous_secret_expires_at, updated_at = EXCLUDED.updated_at
     RETURNING *`,
    [
      w.organizationId,
      w.platformId,
      w.url,
      w.events,
      w.active,
      w.secret,
      w.previousSecret,
      w.previousSecretExpiresAt,
      now,
    ],
  );
  return toWebhookRow(r.rows[0]);
}

/** A webhook_deliveries row, as the API and the replay paths need it. */
export interface DeliveryRow {
  id: string;
  organizationId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed' | 'dead_lettered' | 'suppressed';
  attempt: number;
  statusCode: number | null;
  latencyMs: number | null;
  success: boolean | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  leaseUntil: Date | null;
  createdAt: Date;
}

const DELIVERY_COLUMNS =
  'id, organization_id, event_id, event_type, status, attempt, status_code, latency_ms, success, last_attempt_at, next_attempt_at, lease_until, created_at';

/** Maps a webhook_deliveries row. */
function toDeliveryRow(r: Record<string, any>): DeliveryRow {
  return {
    id: r.id,
    organizationId: r.organization_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempt: r.attempt,
    statusCode: r.status_code,
    latencyMs: r.latency_ms,
    success: r.success,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.next_attempt_at,
    leaseUntil: r.lease_until,
    createdAt: r.created_at,
  };
}

/** Filters of a delivery list; always one organization's. */
export interface DeliveryFilter {
  organizationId: string;
  status?: string;
  eventType?: string;
}

/** The WHERE clause and arguments of a delivery filter. */
function deliveryWhere(f: DeliveryFilter): { where: string[]; args: unknown[] } {
  const where = ['organization_id = $1'];
  const args: unknown[] = [f.organizationId];
  if (f.status !== undefined) {
    args.push(f.status);
    where.push(`status = $${args.length}`);
  }
  if (f.eventType !== undefined) {
    args.push(f.eventType);
    where.push(`event_type = $${args.length}`);
  }
  return { where, args };
}

/** Counts an organization's deliveries matching a filter. */
export async function countDeliveries(db: Queryable, f: DeliveryFilter): Promise<number> {
  const { where, args } = deliveryWhere(f);
  const r = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where.join(' AND ')}`, args);
  return Number(r.rows[0].n);
}

/**
 * Lists an organization's deliveries newest first (created_at, then id, descending), after the delivery `afterId`
 * (the last of the previous page). The position is read from that row itself, so it keeps PostgreSQL's microsecond
 * precision; an id that is not one of the organization's deliveries gives an empty page.
 */
export async function listDeliveries(
  db: Queryable,
  f: DeliveryFilter,
  page: { afterId?: string; limit: number },
): Promise<DeliveryRow[]> {
  const { where, args } = deliveryWhere(f);
  const afterId = page.afterId;
  const orderLimit = keysetPage(
    { where, args },
    {
      columns: ['created_at', 'id'],
      order: 'desc',
      after:
        afterId === undefined
          ? undefined
          : (p) =>
              `(SELECT p.created_at, p.id FROM webhook_deliveries p WHERE p.id = ${p(afterId)} AND p.organization_id = $1)`,
      limit: page.limit,
    },
  );
  const r = await db.query(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ${orderLimit}`,
    args,
  );
  return r.rows.map(toDeliveryRow);
}

/**
 * Reads one delivery by id, whichever organization it belongs to, so the caller can tell an unknown id (404) from
 * another organization's (403 FORBIDDEN, as every resource by path id); callers compare `organizationId` before use.
 */
export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const r = await db.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id]);
  return r.rows[0] ? toDeliveryRow(r.rows[0]) : undefined;
}

/** One webhook_attempts row. */
export interface AttemptRow {
  attempt: number;
  manual: boolean;
  statusCode: number | null;
  latencyMs: number;
  success: boolean;
  error: string | null;
  attemptedAt: Date;
}

/** The attempts of one of an organization's deliveries, in order. */
export async function listAttempts(db: Queryable, organizationId: string, deliveryId: string): Promise<AttemptRow[]> {
  const r = await db.query(
    `SELECT a.attempt, a.manual, a.status_code, a.latency_ms, a.success, a.error, a.attempted_at
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE a.delivery_id = $1 AND d.organization_id = $2 ORDER BY a.attempt`,
    [deliveryId, organizationId],
  );
  return r.rows.map((a: Record<string, any>) => ({
    attempt: a.attempt,
    manual: a.manual,
    statusCode: a.status_code,
    latencyMs: a.latency_ms,
    success: a.success,
    error: a.error,
    attemptedAt: a.attempted_at,
  }));
}

/** What queueing a manual replay did. */
export type QueueReplayOutcome =
  | { kind: 'queued'; attempt: number }
  | { kind: 'not_found' }
  | { kind: 'suppressed' }
  | { kind: 'in_progress' };

/**
 * Queues a manual attempt of one of an organization's deliveries: status `pending`, `manual_pending` (its failure
 * schedules no automatic retry) and due now, in one statement. It refuses a suppressed delivery and one a sender
 * holds an unexpired lease on (the row lock of the UPDATE orders it against a sender's claim). Answers the number
 * the queued attempt will carry.
 */
export async function queueReplay(
  db: Queryable,
  organizationId: string,
  deliveryId: string,
  now: Date,
): Promise<QueueReplayOutcome> {
  const r = await db.query(
    `WITH target AS (SELECT id, status, lease_until FROM webhook_deliveries WHERE id = $1 AND organization_id = $2),
     queued AS (
       UPDATE webhook_deliveries d SET status = 'pending', manual_pending = true, next_attempt_at = $3
        WHERE d.id = $1 AND d.organization_id = $2 AND d.status <> 'suppressed' AND (d.lease_until IS NULL OR d.lease_until <= $3)
        RETURNING d.attempt)
     SELECT t.status, (SELECT attempt FROM queued) AS queued_attempt FROM target t`,
    [deliveryId, organizationId, now],
  );
  const row = r.rows[0] as { status: string; queued_attempt: number | null } | undefined;
  if (!row) return { kind: 'not_found' };
  if (row.queued_attempt !== null) return { kind: 'queued', attempt: row.queued_attempt + 1 };
  return row.status === 'suppressed' ? { kind: 'suppressed' } : { kind: 'in_progress' };
}

/** Takes the transaction-scoped advisory lock that serializes the webhook set-ups of one organization. */
export async function lockWebhookSetup(tx: Queryable, organizationId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('webhook:' || $1))`, [organizationId]);
}
