import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startPrivateRedis } from '../src/launcher/private-redis.js';
import { startEmbeddedPostgres } from '../src/launcher/embedded-postgres.js';

/** Private Redis and PostgreSQL for a bench run. */
export interface BenchStores {
  dir: string;
  redisUrl: string;
  databaseUrl: string;
  redisPid: number;
  /** The postmaster (its backends are its children). */
  postgresPid: number;
  /** How long starting each store took (ms); PostgreSQL includes initdb of a fresh cluster. */
  redisStartMs: number;
  postgresStartMs: number;
  stop(): Promise<void>;
}

/** The postmaster's pid from the first line of `postmaster.pid` in the data directory. */
function postmasterPid(pgDir: string): number {
  const pid = Number(readFileSync(join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no postmaster pid in ${pgDir}/data/postmaster.pid`);
  return pid;
}

/**
 * Starts a private redis-server and an embedded PostgreSQL: in `keepDir` when given (kept on stop, reused by the
 * next run), else in a fresh temporary directory removed on stop.
 */
export async function startBenchStores(o: { keepDir?: string; postgresFlags?: string[] } = {}): Promise<BenchStores> {
  const dir = o.keepDir ?? (await mkdtemp(join(tmpdir(), 'scheduling-bench-')));
  mkdirSync(dir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse())
      await s().catch((err) => console.error(`bench: stopping a store failed: ${String(err)}`));
    if (!o.keepDir) await rm(dir, { recursive: true, force: true });
  };
  try {
    let t0 = performance.now();
    const redis = await startPrivateRedis({ dir: join(dir, 'redis') });
    stops.push(() => redis.stop());
    const redisStartMs = performance.now() - t0;
    t0 = performance.now();
    const pg = await startEmbeddedPostgres({
      dir: join(dir, 'postgres'),
      ...(o.postgresFlags ? { extraFlags: o.postgresFlags } : {}),
    });
    stops.push(() => pg.stop());
    const postgresStartMs = performance.now() - t0;
    return {
      dir,
      redisUrl: redis.url,
      databaseUrl: pg.url,
      redisPid: redis.child.pid!,
      postgresPid: postmasterPid(join(dir, 'postgres')),
      redisStartMs,
      postgresStartMs,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
