import type { Queryable } from './database.js';
import type { Redis } from './redis-client.js';
import { TIMER_KEYS } from './redis-keys.js';
import { AUDIT_STREAM } from './audit-stream.js';
import { REVIEW_STREAM } from './review-queue.js';

/** Work waiting in the PostgreSQL queues of the workers, over all organizations. */
export interface PostgresQueueDepths {
  /** Provider import jobs validating or processing. */
  importJobsPending: number;
  /** Events in the outbox not yet turned into webhook deliveries. */
  webhookEventsUndispatched: number;
  /** Webhook deliveries whose next attempt is due and that no sender holds. */
  webhookDeliveriesDue: number;
  /** Webhook deliveries a sender is attempting now (unexpired lease). */
  webhookDeliveriesLeased: number;
  /** E-mails waiting to be sent. */
  emailOutboxPending: number;
}

/** Work waiting in the Redis queues of the workers. */
export interface RedisQueueDepths {
  /** Durable timers whose due time has passed and that no worker has claimed yet. */
  timersDue: number;
  /** Durable timers claimed by a worker and not yet done. */
  timersLeased: number;
  /** Header-use audit records waiting in the stream to be written to PostgreSQL. */
  auditStreamPending: number;
  /** Manual-review sightings waiting in their stream to be recorded in PostgreSQL. */
  reviewStreamPending: number;
}

/** Counts the PostgreSQL queues in one statement (one round trip, one pool checkout), as of `now`. */
export async function countPostgresQueues(db: Queryable, now: Date): Promise<PostgresQueueDepths> {
  const { rows } = await db.query(
    `SELECT
       (SELECT count(*) FROM provider_imports WHERE status IN ('validating', 'processing'))::int AS imports,
       (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS undispatched,
       (SELECT count(*) FROM webhook_deliveries
         WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1))::int AS due,
       (SELECT count(*) FROM webhook_deliveries WHERE lease_until > $1)::int AS leased,
       (SELECT count(*) FROM email_outbox WHERE status = 'pending')::int AS email`,
    [now],
  );
  const row = rows[0] as Record<'imports' | 'undispatched' | 'due' | 'leased' | 'email', number>;
  return {
    importJobsPending: row.imports,
    webhookEventsUndispatched: row.undispatched,
    webhookDeliveriesDue: row.due,
    webhookDeliveriesLeased: row.leased,
    emailOutboxPending: row.email,
  };
}

/** Counts the Redis queues: four commands sent together (node-redis writes them in one batch), as of `now`. */
export async function countRedisQueues(redis: Redis, now: Date): Promise<RedisQueueDepths> {
  const [timersDue, timersLeased, auditStreamPending, reviewStreamPending] = await Promise.all([
    redis.zCount(TIMER_KEYS.due, '-inf', now.getTime()),
    redis.zCard(TIMER_KEYS.leased),
    redis.xLen(AUDIT_STREAM.key),
    redis.xLen(REVIEW_STREAM.key),
  ]);
  return { timersDue, timersLeased, auditStreamPending, reviewStreamPending };
}
