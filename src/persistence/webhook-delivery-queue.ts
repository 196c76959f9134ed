import type { Database, Queryable } from './database.js';
import { newId } from './new-id.js';
import type { DeliveryAfter, DeliveryStatus } from '../domain/webhooks/delivery-schedule.js';

/**
 * Turns off the wait for the WAL flush at this transaction's commit (`synchronous_commit = off`, this transaction
 * only). The delivery queue's own bookkeeping may take it, because losing its last ~200 ms in a PostgreSQL crash only
 * repeats work and loses no event: an undone dispatch leaves its events undispatched (dispatched again, one delivery
 * per event), an undone lease lets another sender claim the delivery, an undone attempt record sends the delivery
 * again (at-least-once; receivers dedupe on the event id). Each commit's flush cost ~3-4 ms here, and the sender's
 * claim and record were one each per delivery. Events themselves are written by the change's own transaction with
 * a normal commit, and so is the record of a manual attempt (a sync replay answers its client). The claim and the
 * record run inside SQL functions of migration 0008 (webhook_claim_due, webhook_record_attempt) that set it the same
 * way, so each is one round trip.
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`;

/** What one dispatch pass did. */
export interface DispatchResult {
  /** Events stamped dispatched. */
  events: number;
  /** Deliveries created `pending` (to send). */
  pending: number;
}

/**
 * Turns up to `limit` undispatched events into deliveries, in one transaction: for each event whose organization has
 * an active webhook subscribed to its type (or `*`), one delivery (`suppressed` for test-mode events, else `pending`
 * and due now); then stamps the events dispatched. Events are locked `SKIP LOCKED`, so processes share the work, and
 * a crash before the commit leaves them undispatched (nothing lost, nothing doubled: one delivery per event).
 */
export async function dispatchEvents(db: Database, now: Date, limit: number): Promise<DispatchResult> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT ${ASYNC_COMMIT}`);
    const events = await tx.query<{
      id: string;
      organization_id: string;
      type: string;
      mode: string;
      subscribed: boolean;
    }>(
      `SELECT e.id, e.organization_id, e.type, e.mode,
              (w.organization_id IS NOT NULL AND w.active AND (e.type = ANY(w.events) OR '*' = ANY(w.events))) AS subscribed
         FROM events e LEFT JOIN webhooks w ON w.organization_id = e.organization_id
        WHERE e.dispatched_at IS NULL
        ORDER BY e.created_at, e.id LIMIT $1
        FOR UPDATE OF e SKIP LOCKED`,
      [limit],
    );
    if (events.rows.length === 0) return { events: 0, pending: 0 };
    const wanted = events.rows.filter((e) => e.subscribed);
    let pending = 0;
    if (wanted.length > 0) {
      const statuses = wanted.map((e) => (e.mode === 'test' ? 'suppressed' : 'pending'));
      pending = statuses.filter((s) => s === 'pending').length;
      await tx.query(
        `INSERT INTO webhook_deliveries (id, organization_id, event_id, event_type, status, next_attempt_at, created_at)
         SELECT id, org, event_id, type, status, CASE WHEN status = 'pending' THEN $6::timestamptz END, $6
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(id, org, event_id, type, status)
         ON CONFLICT (event_id) DO NOTHING`,
        [
          wanted.map(() => newId('whd', now.getTime())),
          wanted.map((e) => e.organization_id),
          wanted.map((e) => e.id),
          wanted.map((e) => e.type),
          statuses,
          now,
        ],
      );
    }
    await tx.query('UPDATE events SET dispatched_at = $1 WHERE id = ANY($2::text[])', [
      now,
      events.rows.map((e) => e.id),
    ]);
    return { events: events.rows.length, pending };
  });
}

/** A delivery claimed for one attempt, with what signing and sending it needs. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  status: DeliveryStatus;
  /** Number of the attempt about to be made (the last one plus 1). */
  attempt: number;
  automaticAttempts: number;
  /** True when this attempt is a queued replay. */
  manual: boolean;
  leaseToken: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  event: { id: string; type: string; api_version: string; created_at: Date; organization_id: string; data: unknown };
}

const CLAIM_RETURNING = `d.id, d.organization_id, d.status, d.attempt, d.automatic_attempts, d.manual_pending, d.lease_token,
  w.url, w.secret, w.previous_secret, w.previous_secret_expires_at,
  e.id AS event_id, e.type AS event_type, e.api_version, e.created_at AS event_created_at, e.data`;

/** Maps a row of CLAIM_RETURNING. */
function toClaimed(r: Record<string, any>): ClaimedDelivery {
  return {
    id: r.id,
    organizationId: r.organization_id,
    status: r.status,
    attempt: r.attempt + 1,
    automaticAttempts: r.automatic_attempts,
    manual: r.manual_pending,
    leaseToken: r.lease_token,
    url: r.url,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    event: {
      id: r.event_id,
      type: r.event_type,
      api_version: r.api_version,
      created_at: r.event_created_at,
      organization_id: r.organization_id,
      data: r.data,
    },
  };
}

/** Options of claimDueDeliveries. */
export interface ClaimOptions {
  /** Deliveries to claim at most (this process's free sending slots). */
  limit: number;
  /** Deliveries of one organization in flight at most, over all processes. */
  perOrganization: number;
  leaseMs: number;
  leaseToken: string;
}

/**
 * Claims due deliveries (`pending` or `failed`, due, lease free or expired) of organizations whose webhook is active,
 * leasing each until now + leaseMs under `leaseToken`. Organizations take turns (the first due delivery of each, then
 * the second...) and none gets more than `perOrganization` unexpired leases, so one organization's slow receiver
 * cannot take every slot. Claims of all processes run one at a time (a transaction-scoped advisory lock), so the
 * per-organization bound holds exactly.
 */
export async function claimDueDeliveries(db: Queryable, now: Date, opts: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  // One round trip: the lock, the claim and the asynchronous commit are in webhook_claim_due (migration 0008).
  const r = await db.query('SELECT * FROM webhook_claim_due($1, $2, $3, $4, $5)', [
    now,
    opts.perOrganization,
    opts.limit,
    opts.leaseToken,
    new Date(now.getTime() + opts.leaseMs),
  ]);
  return r.rows.map(toClaimed);
}

/**
 * Leases one delivery of an organization for a manual attempt made now (a sync replay), whatever its status.
 * Answers `missing` for an unknown id or another organization's delivery, `leased` while a sender holds it.
 */
export async function leaseDeliveryForReplay(
  db: Queryable,
  organizationId: string,
  deliveryId: string,
  now: Date,
  opts: { leaseMs: number; leaseToken: string },
): Promise<ClaimedDelivery | 'missing' | 'leased'> {
  const r = await db.query(
    `UPDATE webhook_deliveries d SET lease_token = $4, lease_until = $5
       FROM events e, webhooks w
      WHERE d.id = $1 AND d.organization_id = $2 AND (d.lease_until IS NULL OR d.lease_until <= $3)
        AND e.id = d.event_id AND w.organization_id = d.organization_id
     RETURNING ${CLAIM_RETURNING}`,
    [deliveryId, organizationId, now, opts.leaseToken, new Date(now.getTime() + opts.leaseMs)],
  );
  if (r.rows[0]) return { ...toClaimed(r.rows[0]), manual: true };
  const exists = await db.query(
    'SELECT lease_until > $3 AS leased FROM webhook_deliveries WHERE id = $1 AND organization_id = $2',
    [deliveryId, organizationId, now],
  );
  return exists.rows[0]?.leased ? 'leased' : 'missing';
}

/** One attempt's outcome, to record. */
export interface AttemptRecord {
  statusCode: number | null;
  latencyMs: number;
  success: boolean;
  error: string | undefined;
  attemptedAt: Date;
}

/**
 * Records an attempt (a webhook_attempts row) and moves the delivery to `after`, releasing the lease, in one round
 * trip (webhook_record_attempt; an automatic attempt commits asynchronously, see ASYNC_COMMIT), only while
 * `claimed.leaseToken` still holds the lease: a sender whose lease expired and was taken over records nothing. A replay queued while this automatic attempt was in flight stays queued. Answers whether it
 * recorded.
 */
export async function recordAttempt(
  db: Queryable,
  claimed: ClaimedDelivery,
  outcome: AttemptRecord,
  after: DeliveryAfter,
): Promise<boolean> {
  const r = await db.query('SELECT * FROM webhook_record_attempt($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)', [
    claimed.id,
    claimed.leaseToken,
    claimed.attempt,
    after.automaticAttempts,
    after.status,
    after.nextAttemptAt,
    outcome.statusCode,
    outcome.latencyMs,
    outcome.success,
    outcome.attemptedAt,
    claimed.manual,
    outcome.error ?? null,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** Gives a lease back without an attempt (a send that could not start). */
export async function releaseLease(db: Queryable, claimed: Pick<ClaimedDelivery, 'id' | 'leaseToken'>): Promise<void> {
  await db.query(
    'UPDATE webhook_deliveries SET lease_token = NULL, lease_until = NULL WHERE id = $1 AND lease_token = $2',
    [claimed.id, claimed.leaseToken],
  );
}
