import type { Database } from '../persistence/database.js';
import type { Redis } from '../persistence/redis-client.js';
import { TIMER_KEYS } from '../persistence/redis-keys.js';
import { AUDIT_STREAM } from '../persistence/audit-stream.js';
import { REVIEW_STREAM } from '../persistence/review-queue.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * Registers the worker queues and the PostgreSQL pool as gauges read at scrape time: pool connections (all, idle,
 * waiters), durable timers due and leased, header-use audit records and manual-review sightings waiting in their Redis
 * streams, import jobs not finished, e-mail waiting to be sent, webhook events not dispatched and deliveries due or
 * being sent. Each read is one indexed count or one Redis command; a store that is down reports -1 instead of failing
 * the scrape.
 */
export function registerQueueGauges(
  metrics: ServiceMetrics,
  deps: { db: Pick<Database, 'query' | 'pool'>; redis: Redis; clock: () => Date },
): void {
  const count = async (sql: string) => Number((await deps.db.query(sql)).rows[0]?.n ?? 0);
  const countAt = async (sql: string) => Number((await deps.db.query(sql, [deps.clock()])).rows[0]?.n ?? 0);
  metrics.gaugeOnScrape(
    'pg_pool_connections',
    'PostgreSQL connections the pool holds (idle and in use).',
    () => deps.db.pool.totalCount,
  );
  metrics.gaugeOnScrape('pg_pool_idle', 'PostgreSQL connections idle in the pool.', () => deps.db.pool.idleCount);
  metrics.gaugeOnScrape(
    'pg_pool_waiting',
    'Queries and transactions waiting for a PostgreSQL connection.',
    () => deps.db.pool.waitingCount,
  );
  metrics.gaugeOnScrape(
    'timers_due',
    'Durable timers whose due time has passed and that no worker has claimed yet.',
    () => deps.redis.zCount(TIMER_KEYS.due, '-inf', deps.clock().getTime()),
  );
  metrics.gaugeOnScrape('timers_leased', 'Durable timers claimed by a worker and not yet done.', () =>
    deps.redis.zCard(TIMER_KEYS.leased),
  );
  metrics.gaugeOnScrape(
    'audit_stream_pending',
    'Audit records of calls made with Service-Organization-Id waiting in Redis to be written to PostgreSQL.',
    () => deps.redis.xLen(AUDIT_STREAM.key),
  );
  metrics.gaugeOnScrape(
    'review_stream_pending',
    'Manual-review sightings of resolutions waiting in Redis to be recorded in PostgreSQL.',
    () => deps.redis.xLen(REVIEW_STREAM.key),
  );
  metrics.gaugeOnScrape('import_jobs_pending', 'Provider import jobs validating or processing.', () =>
    count(`SELECT count(*)::int AS n FROM provider_imports WHERE status IN ('validating', 'processing')`),
  );
  metrics.gaugeOnScrape(
    'webhook_events_undispatched',
    'Events in the outbox not yet turned into webhook deliveries.',
    () => count(`SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL`),
  );
  metrics.gaugeOnScrape(
    'webhook_deliveries_due',
    'Webhook deliveries whose next attempt is due and that no sender holds.',
    () =>
      countAt(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)`,
      ),
  );
  metrics.gaugeOnScrape(
    'webhook_deliveries_leased',
    'Webhook deliveries a sender is attempting now (unexpired lease).',
    () => countAt(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE lease_until > $1`),
  );
  metrics.gaugeOnScrape('email_outbox_pending', 'E-mails waiting to be sent (live mode with SMTP_URL).', () =>
    count(`SELECT count(*)::int AS n FROM email_outbox WHERE status = 'pending'`),
  );
}
