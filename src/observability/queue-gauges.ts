import type { Database } from '../persistence/database.js';
import type { Redis } from '../persistence/redis-client.js';
import {
  countPostgresQueues,
  countRedisQueues,
  type PostgresQueueDepths,
  type RedisQueueDepths,
} from '../persistence/queue-depths.js';
import type { ServiceMetrics } from './service-metrics.js';

/** How often a process samples the worker queues for its gauges: finer than Prometheus's usual 15 s scrape interval. */
export const QUEUE_SAMPLE_INTERVAL_MS = 10_000;

/** The queue gauges of one process and the sampler that sets them. */
export interface QueueGauges {
  /** Takes a sample at once, then one every interval. */
  start(): void;
  /** Stops sampling and waits for a pass in progress. */
  stop(): Promise<void>;
  /** Takes a sample now (after any pass in progress), resolves once the gauges hold it, and restarts the interval. */
  refresh(): Promise<void>;
}

/** The gauge of each PostgreSQL queue count: name and help. */
const POSTGRES_GAUGES: Record<keyof PostgresQueueDepths, [string, string]> = {
  importJobsPending: ['scheduling_import_jobs_pending', 'Provider import jobs validating or processing.'],
  webhookEventsUndispatched: [
    'scheduling_webhook_events_undispatched',
    'Events in the outbox not yet turned into webhook deliveries.',
  ],
  webhookDeliveriesDue: [
    'scheduling_webhook_deliveries_due',
    'Webhook deliveries whose next attempt is due and that no sender holds.',
  ],
  webhookDeliveriesLeased: [
    'scheduling_webhook_deliveries_leased',
    'Webhook deliveries a sender is attempting now (unexpired lease).',
  ],
  emailOutboxPending: ['scheduling_email_outbox_pending', 'E-mails waiting to be sent (live mode with SMTP_URL).'],
};

/** The gauge of each Redis queue count: name and help. */
const REDIS_GAUGES: Record<keyof RedisQueueDepths, [string, string]> = {
  timersDue: ['scheduling_timers_due', 'Durable timers whose due time has passed and that no worker has claimed yet.'],
  timersLeased: ['scheduling_timers_leased', 'Durable timers claimed by a worker and not yet done.'],
  auditStreamPending: [
    'scheduling_audit_stream_pending',
    'Audit records of calls made with Service-Organization-Id waiting in Redis to be written to PostgreSQL.',
  ],
  reviewStreamPending: [
    'scheduling_review_stream_pending',
    'Manual-review sightings of resolutions waiting in Redis to be recorded in PostgreSQL.',
  ],
};

/**
 * Registers the gauges of the PostgreSQL pool (read from the pool's own counters at scrape time) and of the worker
 * queues (durable timers due and leased, audit records in the Redis stream, import jobs, webhook events and deliveries,
 * e-mail), which a sampler sets every `intervalMs` from one PostgreSQL statement and one batch of Redis commands. A
 * scrape only reads memory, so any number of scrapers costs the stores nothing; the queue gauges are up to one interval
 * old. A store that does not answer a pass sets its gauges to -1 until a later pass reads it.
 */
export function createQueueGauges(
  metrics: ServiceMetrics,
  deps: {
    db: Pick<Database, 'query' | 'pool'>;
    redis: Redis;
    clock: () => Date;
    /** @default QUEUE_SAMPLE_INTERVAL_MS */
    intervalMs?: number;
  },
): QueueGauges {
  const pool = deps.db.pool;
  metrics.gaugeOnScrape(
    'scheduling_pg_pool_connections',
    'PostgreSQL connections the pool holds (idle and in use).',
    () => pool.totalCount,
    { anonymous: true },
  );
  metrics.gaugeOnScrape('scheduling_pg_pool_idle', 'PostgreSQL connections idle in the pool.', () => pool.idleCount, {
    anonymous: true,
  });
  metrics.gaugeOnScrape(
    'scheduling_pg_pool_waiting',
    'Queries and transactions waiting for a PostgreSQL connection.',
    () => pool.waitingCount,
    { anonymous: true },
  );
  const gaugesOf = <K extends string>(table: Record<K, [string, string]>) =>
    Object.fromEntries(
      Object.entries<[string, string]>(table).map(([key, [name, help]]) => [key, metrics.gauge(name, help)]),
    ) as Record<K, ReturnType<ServiceMetrics['gauge']>>;
  const postgresGauges = gaugesOf(POSTGRES_GAUGES);
  const redisGauges = gaugesOf(REDIS_GAUGES);
  const setAll = <K extends string>(gauges: Record<K, { set(v: number): void }>, values: Record<K, number> | -1) => {
    for (const key of Object.keys(gauges) as K[]) gauges[key].set(values === -1 ? -1 : values[key]);
  };

  const sample = async () => {
    const now = deps.clock();
    const [postgres, redis] = await Promise.all([
      countPostgresQueues(deps.db, now).catch(() => -1 as const),
      countRedisQueues(deps.redis, now).catch(() => -1 as const),
    ]);
    setAll(postgresGauges, postgres);
    setAll(redisGauges, redis);
  };

  const intervalMs = deps.intervalMs ?? QUEUE_SAMPLE_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let current: Promise<void> = Promise.resolve();
  // The next pass is armed once a pass ends: a store that answers slowly stretches the interval instead of piling
  // passes up, and a refresh restarts the interval.
  const arm = () => {
    clearTimeout(timer);
    if (!running) return;
    timer = setTimeout(() => void pass(), intervalMs);
    timer.unref();
  };
  const pass = () => {
    clearTimeout(timer);
    current = current.then(sample).then(arm);
    return current;
  };
  return {
    start() {
      running = true;
      void pass();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
    refresh: pass,
  };
}
