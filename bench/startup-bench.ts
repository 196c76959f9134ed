import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/load-config.js';
import { startService, type RunningService } from '../src/start-service.js';
import type { BenchStores } from './bench-stores.js';

/** A service started by the bench, with its base URL and how long startService took. */
export interface BenchService {
  service: RunningService;
  url: string;
  startMs: number;
}

/** A platform key for the bootstrap setting (service_test_ + 32 URL-safe characters). */
export function newPlatformKey(): string {
  return `service_test_${randomBytes(24).toString('base64url')}`;
}

/**
 * Starts the whole service (gateway, gRPC, workers) in this process on the bench stores, on ephemeral
 * 127.0.0.1 ports, silent, with a rate limit high enough never to throttle the load; times startService.
 */
export async function startBenchService(stores: BenchStores, platformKey: string): Promise<BenchService> {
  const config = loadConfig({
    PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    REDIS_URL: stores.redisUrl, DATABASE_URL: stores.databaseUrl, DATA_DIR: stores.dir,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
    RATE_LIMIT_PER_MINUTE: '100000000',
    // Resolutions made before a timed phase must not expire while it runs.
    RESOLUTION_TTL_SECONDS: '3600',
  });
  const t0 = performance.now();
  const service = await startService(config, { log: () => undefined });
  const startMs = performance.now() - t0;
  return { service, url: `http://127.0.0.1:${service.httpPort}`, startMs };
}
