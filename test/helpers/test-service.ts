import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config/load-config.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/launcher/private-redis.js';
import { startService, type RunningService } from '../../src/start-service.js';
import { createTestClock, type TestClock } from './test-clock.js';
import { createTestDatabase } from './test-database.js';
import type { ServiceLogger } from '../../src/observability/create-logger.js';
import type { OutboundLookup } from '../../src/application/outbound/guarded-lookup.js';
import type { Tracing } from '../../src/observability/create-tracing.js';

/** Private stores for one test file: a fresh migrated database and a private redis-server (or TEST_REDIS_URL). */
export interface TestStores {
  databaseUrl: string;
  redisUrl: string;
  redis: PrivateRedis | undefined;
  stop(): Promise<void>;
}

/** Starts the stores a test file uses, both at once. */
export async function startTestStores(): Promise<TestStores> {
  const dir = join(process.env.TEST_DATA_DIR ?? '/tmp', `redis-${randomBytes(4).toString('hex')}`);
  const [db, rs] = await Promise.allSettled([
    createTestDatabase({ schema: 'migrated' }),
    process.env.TEST_REDIS_URL ? undefined : startPrivateRedis({ dir }),
  ]);
  if (db.status === 'rejected' || rs.status === 'rejected') {
    if (db.status === 'fulfilled') await db.value.drop().catch(() => undefined);
    if (rs.status === 'fulfilled') await rs.value?.stop();
    throw db.status === 'rejected' ? db.reason : (rs as PromiseRejectedResult).reason;
  }
  const database = db.value;
  const redis = rs.value;
  return {
    databaseUrl: database.url,
    redisUrl: process.env.TEST_REDIS_URL ?? redis!.url,
    redis,
    async stop() {
      await Promise.all([redis?.stop(), database.drop().catch(() => undefined)]);
    },
  };
}

/** A service started for tests, with its base URL, platform key and clock. */
export interface TestService {
  url: string;
  grpcTarget: string;
  platformKey: string;
  clock: TestClock;
  service: RunningService;
  stores: TestStores;
  config: Config;
  stop(): Promise<void>;
}

/** Starts a whole service (all roles, ephemeral ports) on private stores, with a test clock. */
export async function startTestService(
  opts: {
    env?: Record<string, string>;
    stores?: TestStores;
    clock?: TestClock;
    platformKey?: string;
    logger?: ServiceLogger;
    outboundLookup?: OutboundLookup;
    /** Tracing the service uses (an InMemorySpanExporter's); the test shuts it down. */
    tracing?: Tracing;
  } = {},
): Promise<TestService> {
  const stores = opts.stores ?? (await startTestStores());
  const platformKey = opts.platformKey ?? `service_test_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    REDIS_URL: stores.redisUrl,
    DATABASE_URL: stores.databaseUrl,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
    DATA_DIR: process.env.TEST_DATA_DIR ?? '/tmp',
    // A new connection to the test cluster can take over the 2 s default while a dozen test files start at once (seen
    // once as a before hook's 503); the bound itself is tested with its defaults in test/ops and test/persistence.
    PG_POOL_WAIT_MS: '10000',
    ...opts.env,
  });
  const clock = opts.clock ?? createTestClock();
  const service = await startService(config, {
    clock,
    log: () => undefined,
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.outboundLookup ? { outboundLookup: opts.outboundLookup } : {}),
    ...(opts.tracing ? { tracing: opts.tracing } : {}),
  });
  return {
    url: `http://127.0.0.1:${service.httpPort}`,
    grpcTarget: `127.0.0.1:${service.grpcPort}`,
    platformKey,
    clock,
    service,
    stores,
    config,
    async stop() {
      await service.stop();
      if (!opts.stores) await stores.stop();
    },
  };
}
