import type { Config } from '../config/load-config.js';
import { createDatabase, type Database } from '../persistence/database.js';
import { detectTransactionPooler } from '../persistence/detect-transaction-pooler.js';
import { boundPoolWaiters } from '../persistence/bound-pool-waiters.js';
import { createRedis, type Redis } from '../persistence/redis-client.js';
import { createStoreProbe, type StoreProbe } from '../persistence/store-probe.js';
import { runMigrations } from '../persistence/run-migrations.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Tracing } from '../observability/create-tracing.js';
import type { Lifetime } from './lifetime.js';
import type { StoreUrls } from './start-private-stores.js';

/** The service's connections to its stores. */
export interface OpenStores {
  db: Database;
  /** DATABASE_URL leads to a transaction pooler (DATABASE_POOL_MODE, found out when `auto`). */
  transactionPooler: boolean;
  redis: Redis;
  /** Bounded liveness checks of both stores (readiness, gRPC health). */
  probe: StoreProbe;
}

/**
 * Finds out whether PostgreSQL is reached through a transaction pooler (DATABASE_POOL_MODE), opens the PostgreSQL pool
 * (with the configured timeouts and waiter bound), migrates the schema, connects to Redis
 * and creates the store probe; each closes with the lifetime. With `tracing`, the statements and commands of traced
 * requests and jobs get spans.
 */
export async function openStores(
  config: Config,
  urls: StoreUrls,
  deps: { lifetime: Lifetime; metrics: ServiceMetrics; tracing?: Tracing | undefined },
): Promise<OpenStores> {
  const { lifetime, metrics, tracing } = deps;
  const st = config.storeTimeouts;
  const transactionPooler = await detectTransactionPooler(urls.databaseUrl, config.databasePoolMode, {
    connectTimeoutMs: st.pgPoolWaitMs,
  });
  const db = createDatabase(urls.databaseUrl, {
    transactionPooler,
    onPoolWait: (s) => metrics.poolWait.observe(s),
    timeouts: {
      statementMs: st.pgStatementMs,
      lockMs: st.pgLockMs,
      poolWaitMs: st.pgPoolWaitMs,
      transactionMs: st.pgTransactionMs,
    },
    ...(tracing ? { tracing } : {}),
  });
  lifetime.defer(() => db.close());
  boundPoolWaiters(db.pool, {
    maxWaiters: config.pgPoolMaxWaiters,
    onRefused: () => metrics.admissionShed.inc({ gate: 'pg_pool', reason: 'pool_full' }),
  });
  await runMigrations(db.pool);
  const redis = await createRedis(urls.redisUrl, {
    commandTimeoutMs: st.redisCommandMs,
    ...(tracing ? { tracing } : {}),
  });
  lifetime.defer(() => redis.close().catch(() => redis.destroy()));
  const probe = createStoreProbe({ databaseUrl: urls.databaseUrl, redis });
  lifetime.defer(() => probe.close());
  return { db, transactionPooler, redis, probe };
}
