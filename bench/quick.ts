import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg_ from 'pg';
import { startPrivateRedis } from '../src/launcher/private-redis.js';
import { startEmbeddedPostgres } from '../src/launcher/embedded-postgres.js';
import { createBenchClient } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { runClosedLoop, throughputOf } from './closed-loop.js';
import { latencyStats } from './latency-stats.js';
import { typicalResolutionBody } from './resolution-requests.js';
import { createSeededRandom } from './seeded-random.js';
import { seedOrganization } from './seed-organization.js';
import { newPlatformKey, startBenchService } from './startup-bench.js';
import { rssOf, sampleRss } from './resolution-bench.js';
import { benchHoldConfirm } from './hold-confirm-bench.js';
import { startServiceProcess } from '../test/helpers/service-process.js';

/**
 * Developer loop (`npm run bench:quick`): seeds a 10,000-provider organization once into BENCH_DIR
 * (default /tmp/scheduling-bench-keep) and, on every run, measures resolutions (1 and 8 clients) and,
 * with QUICK_HOLD=1, hold+confirm on those kept stores. Faster than `npm run bench` for before/after checks.
 * QUICK_PROCS=N loads N service processes of their own instead of an in-process service (CHILD_NODE_OPTIONS is
 * passed to them as NODE_OPTIONS); QUICK_ONE_MS / QUICK_EIGHT_MS set the phase lengths; QUICK_HC_CLIENTS the
 * hold+confirm concurrency. The kept stores grow with every hold run: delete BENCH_DIR to start over.
 */
const PgPool = pg_.Pool;
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-keep';
const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 10_000);
const log = (line: string) => console.log(`[quick ${new Date().toISOString().slice(11, 19)}] ${line}`);

mkdirSync(DIR, { recursive: true });
const redis = await startPrivateRedis({ dir: join(DIR, 'redis') });
// QUICK_PGSTAT=1 loads pg_stat_statements and prints the statements that cost PostgreSQL the most time.
const pgStat = Boolean(process.env.QUICK_PGSTAT);
const pg = await startEmbeddedPostgres({ dir: join(DIR, 'postgres'), ...(pgStat ? { extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] } : {}) });
const stores = { dir: DIR, redisUrl: redis.url, databaseUrl: pg.url, redisStartMs: 0, postgresStartMs: 0, stop: async () => {} };
const seedFile = join(DIR, 'seed.json');
let seed: { platformKey: string; orgKey: string; serviceIds: string[]; firstDate: string; usedProviderIds: string[] };
const fresh = !existsSync(seedFile);
const platformKey = fresh ? newPlatformKey() : JSON.parse(readFileSync(seedFile, 'utf8')).platformKey;
let running = await startBenchService(stores, platformKey);
try {
  if (fresh) {
    const nowMs = Date.now();
    const firstDate = firstBenchDate(nowMs);
    const s = await seedOrganization({ baseUrl: running.url, platformKey, providerCount: PROVIDERS, rowsPerImport: 500, concurrency: 16, existingBookings: 200, firstDate, nowMs, rnd: createSeededRandom(20_260_301), log });
    seed = { platformKey, orgKey: s.orgKey, serviceIds: s.providers.map((p) => p.serviceId), firstDate, usedProviderIds: [...s.usedProviderIds] };
    writeFileSync(seedFile, JSON.stringify(seed));
    await running.service.stop();
    running = await startBenchService(stores, platformKey);
  } else {
    seed = JSON.parse(readFileSync(seedFile, 'utf8'));
  }
  const statsDb = pgStat ? new PgPool({ connectionString: pg.url, max: 1 }) : undefined;
  await statsDb?.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()');
  const rnd = createSeededRandom(Number(process.env.QUICK_SEED ?? 7));
  const procs = Number(process.env.QUICK_PROCS ?? 0);
  const children: Awaited<ReturnType<typeof startServiceProcess>>[] = [];
  for (let i = 0; i < procs; i++) {
    children.push(await startServiceProcess({ databaseUrl: pg.url, redisUrl: redis.url, platformKey, dataDir: join(DIR, `proc-${i}`), env: { RATE_LIMIT_PER_MINUTE: '100000000', RESOLUTION_TTL_SECONDS: '3600', ...(process.env.CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.CHILD_NODE_OPTIONS } : {}) } }));
  }
  if (procs > 0) await running.service.stop();
  const api = createBenchClient(procs > 0 ? children.map((c) => c.url) : running.url, seed.orgKey);
  const peakRss = new Map<number, number>();
  const rssTimer = setInterval(() => { for (const c of children) peakRss.set(c.pid, Math.max(peakRss.get(c.pid) ?? 0, rssOf(c.pid) / 2 ** 20)); }, 100);
  const body = () => typicalResolutionBody(rnd, { serviceIds: seed.serviceIds, from: seed.firstDate, days: 14 });
  for (let i = 0; i < 20; i++) await api.post('/api/v2/resolutions', body(), { 'idempotency-key': randomUUID() });
  const task = async () => {
    const r = await api.post('/api/v2/resolutions', body(), { 'idempotency-key': randomUUID() });
    if (r.status !== 200) console.log(r.status, JSON.stringify(r.body).slice(0, 200));
    return r.status === 200 ? r.ms : 'fail' as const;
  };
  const one = await runClosedLoop({ concurrency: 1, durationMs: Number(process.env.QUICK_ONE_MS ?? 4000), task });
  log(`1 client: n ${one.latencies.length} ${JSON.stringify(latencyStats(one.latencies))}`);
  const rss = sampleRss([process.pid]);
  const eight = await runClosedLoop({ concurrency: 8, durationMs: Number(process.env.QUICK_EIGHT_MS ?? 8000), task });
  const peak = rss.stop();
  log(`8 clients: ${throughputOf(eight).toFixed(1)}/s fail ${eight.failures} ${JSON.stringify(latencyStats(eight.latencies))} rss peak (this process) ${(peak[0]! / 2 ** 20).toFixed(0)} MB`);
  if (process.env.QUICK_HOLD) {
    const hc = await benchHoldConfirm({ api, rnd, serviceIds: seed.serviceIds, firstDate: seed.firstDate, usedProviderIds: new Set(seed.usedProviderIds), poolSize: 600, prepareMaxMs: 60_000, concurrency: Number(process.env.QUICK_HC_CLIENTS ?? 8), durationMs: 5000, singleClientMs: 3000 });
    log(`hold+confirm 8 clients: ${hc.roundTripsPerSecond.toFixed(1)}/s p50 ${hc.roundTrip.p50.toFixed(1)} p99 ${hc.roundTrip.p99.toFixed(1)}; hold p99 ${hc.hold.p99.toFixed(1)} confirm p99 ${hc.confirm.p99.toFixed(1)}; 1 client p50 ${hc.singleClient.p50.toFixed(1)} p99 ${hc.singleClient.p99.toFixed(1)}; failures ${hc.failures} ${JSON.stringify(hc.failureCodes)}`);
  }
  clearInterval(rssTimer);
  if (procs > 0) log(`service processes peak RSS: ${[...peakRss.values()].map((v) => v.toFixed(0)).join(', ')} MB`);
  for (const c of children) await c.stop();
  if (pgStat) {
    const { rows } = await statsDb!.query(`SELECT calls, round(total_exec_time::numeric, 0) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
      FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 40`);
    console.table(rows);
    await statsDb!.end();
  }
} finally {
  await running.service.stop().catch(() => undefined);
  await pg.stop();
  await redis.stop();
}
