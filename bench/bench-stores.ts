import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startPrivateRedis } from '../src/launcher/private-redis.js';
import { startEmbeddedPostgres } from '../src/launcher/embedded-postgres.js';

/** Private Redis and PostgreSQL for one bench run, in a temporary directory removed on stop. */
export interface BenchStores {
  dir: string;
  redisUrl: string;
  databaseUrl: string;
  /** How long starting each store took (ms); PostgreSQL includes initdb of a fresh cluster. */
  redisStartMs: number;
  postgresStartMs: number;
  stop(): Promise<void>;
}

/** Starts a private redis-server and an embedded PostgreSQL in a fresh temporary directory. */
export async function startBenchStores(): Promise<BenchStores> {
  const dir = await mkdtemp(join(tmpdir(), 'scheduling-bench-'));
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => console.error(`bench: stopping a store failed: ${String(err)}`));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let t0 = performance.now();
    const redis = await startPrivateRedis({ dir: join(dir, 'redis') });
    stops.push(() => redis.stop());
    const redisStartMs = performance.now() - t0;
    t0 = performance.now();
    const pg = await startEmbeddedPostgres({ dir: join(dir, 'postgres') });
    stops.push(() => pg.stop());
    const postgresStartMs = performance.now() - t0;
    return { dir, redisUrl: redis.url, databaseUrl: pg.url, redisStartMs, postgresStartMs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
