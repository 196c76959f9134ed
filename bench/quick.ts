import pg from 'pg';
import { measurementRow, renderReport, type BenchRow } from './bench-report.js';
import { createBenchClient, createHttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { benchMetrics, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { benchBookingLoop } from './booking-loop-bench.js';
import { createGrpcResolutionClient } from './grpc-resolution-client.js';
import type { MeasureContext } from './measure-scenario.js';
import { measureRawBaseline, type RawBaseline } from './raw-baseline.js';
import { benchResolutions, grpcResolutionCaller, httpResolutionCaller } from './resolution-load.js';
import { benchResolutionReads } from './resolution-read-load.js';
import { CLINIC_MIX, CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import { createResponseTally } from './response-tally.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { keptSeed, readKeptSeed } from './kept-seed.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * Developer loop (`npm run bench:quick`): seeds a 10,000-provider organization once into BENCH_DIR (default
 * /tmp/scheduling-bench-quick; delete it to start over) and on every run loads the service process(es) with the
 * pieces of `npm run bench`. By default: resolutions on the platform path with the ~10% mix at 1 and 8 clients.
 *   QUICK_PATH=platform|org|grpc   QUICK_MIX=10|3|1|clinic   QUICK_CLIENTS=1,8   QUICK_SECONDS=5   QUICK_PROCS=1
 *   QUICK_READS=1 (GET resolution, 32 clients)   QUICK_HOLD=1 (resolve + hold + confirm, 8 clients; the stores grow)
 *   QUICK_RAW=1 (raw node:http baseline first, for the `vs raw` column)   QUICK_PGSTAT=1 (top statements by time)
 *   QUICK_METRICS=1 (mean time per resolution phase, pool wait and Redis round trip, from the service's /metrics)
 *   CHILD_NODE_OPTIONS / SERVICE_NODE_ARGS reach the service processes (e.g. SERVICE_NODE_ARGS=--cpu-prof).
 */
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-quick';
const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 10_000);
const PATH = (process.env.QUICK_PATH ?? 'platform') as 'platform' | 'org' | 'grpc';
const MIX =
  process.env.QUICK_MIX === 'clinic'
    ? CLINIC_MIX
    : CONSTRAINT_MIXES[`mix${process.env.QUICK_MIX ?? '10'}` as keyof typeof CONSTRAINT_MIXES];
const CLIENTS = (process.env.QUICK_CLIENTS ?? '1,8').split(',').map(Number);
const PHASE_MS = Number(process.env.QUICK_SECONDS ?? 5) * 1000;
const PROCS = Number(process.env.QUICK_PROCS ?? 1);
const PGSTAT = Boolean(process.env.QUICK_PGSTAT);
const log = (line: string) => console.log(`[quick ${new Date().toISOString().slice(11, 19)}] ${line}`);

if (!MIX) throw new Error('QUICK_MIX must be 10, 3, 1 or clinic');
// Fails early on stores an older bench seeded.
readKeptSeed(DIR);
const tally = createResponseTally();
const raw: RawBaseline = process.env.QUICK_RAW
  ? await measureRawBaseline({ clients: [1, 8, 32], durationMs: 3000, tally, log })
  : { byClients: new Map() };
const stores = await startBenchStores({
  keepDir: DIR,
  ...(PGSTAT
    ? { postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] }
    : {}),
});
const services: BenchService[] = [];
stopOnSignal(async () => {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await stores.stop();
});
try {
  const seed = await keptSeed({ dir: DIR, stores, providerCount: PROVIDERS, tally, log });
  for (let i = 0; i < PROCS; i++) services.push(await startBenchService(stores, seed.platformKey, `service-${i}`));
  log(`${PROCS} service process(es) started in ${services.map((s) => s.startMs.toFixed(0)).join(', ')} ms`);
  const target = createHttpTarget(services.map((s) => s.url));
  const platform = createBenchClient(target, {
    key: seed.platformKey,
    headers: { 'service-organization-id': seed.organizationId },
    tally,
  });
  const grpc =
    PATH === 'grpc'
      ? createGrpcResolutionClient({
          target: services[0]!.grpcTarget,
          key: seed.platformKey,
          organizationId: seed.organizationId,
          tally,
        })
      : undefined;
  const call =
    PATH === 'grpc'
      ? grpcResolutionCaller(grpc!)
      : httpResolutionCaller(PATH === 'org' ? createBenchClient(target, { key: seed.orgKey, tally }) : platform);
  const ctx: MeasureContext = {
    tally,
    processes: { service: services.map((s) => s.pid), postgres: stores.postgresPid, redis: stores.redisPid },
    // The refusals of one process's admission (several processes: none read).
    ...(PROCS === 1 ? { serviceUrl: services[0]!.url } : {}),
  };
  const statsDb = PGSTAT ? new pg.Client({ connectionString: stores.databaseUrl }) : undefined;
  await statsDb?.connect();
  await statsDb?.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const rnd = createSeededRandom(Number(process.env.QUICK_SEED ?? 7));
  const firstDate = firstBenchDate(Date.now());
  const rows: BenchRow[] = [];
  // The first resolution loads the graph; it is not part of any row.
  await call(resolutionBody(MIX, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 }));
  await statsDb?.query('SELECT pg_stat_statements_reset()');
  for (const clients of CLIENTS) {
    log(`resolutions, ${PATH}, ${MIX.label}, ${clients} client(s), ${PHASE_MS / 1000} s`);
    const m = await benchResolutions(
      {
        id: `resolution.${PATH}.${MIX.id}.c${clients}`,
        label: `POST resolutions, ${PATH}, ${MIX.id}, ${clients} client(s)`,
        call,
        mix: MIX,
        rnd,
        serviceIds: seed.serviceIds,
        firstDate,
        providerCount: seed.providerCount,
        concurrency: clients,
        durationMs: PHASE_MS,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'resolution', m, 'resolutions', seed.providerCount));
  }
  if (process.env.QUICK_READS) {
    log('GET /api/v2/resolutions/:id, platform, 32 clients');
    const m = await benchResolutionReads(
      {
        id: 'resolution-read.platform.c32',
        label: 'GET /api/v2/resolutions/:id, platform, 32 clients',
        api: platform,
        create: httpResolutionCaller(platform),
        bodies: Array.from({ length: 64 }, () =>
          resolutionBody(MIX, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 }),
        ),
        concurrency: 32,
        durationMs: PHASE_MS,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'read', m, 'reads'));
  }
  if (process.env.QUICK_HOLD) {
    log('resolve + hold + confirm, platform, 8 clients');
    const m = await benchBookingLoop(
      {
        id: 'booking-loop.platform.c8',
        label: `resolve + hold + confirm, platform, ${MIX.id}, 8 clients`,
        api: platform,
        mix: MIX,
        rnd,
        serviceIds: seed.serviceIds,
        firstDate,
        usedProviderIds: new Set(seed.usedProviderIds),
        concurrency: 8,
        durationMs: PHASE_MS,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'booking', m, 'round trips'));
    rows.push({
      id: 'booking-loop.platform.c8.hold-confirm',
      group: '',
      label: '  hold + confirm',
      p50: Number(m.notes.holdConfirmP50),
      p99: Number(m.notes.holdConfirmP99),
      answers: `failures ${m.notes.failureCodes}; no free option ${m.notes.noFreeOption}`,
    });
  }
  console.log('');
  console.log(renderReport(rows));
  if (process.env.QUICK_METRICS) {
    // Mean time per resolution phase and per RPC, from the service's own /metrics (first process).
    const text = await benchMetrics(services[0]!.url);
    const means = (metric: string) => {
      const sums = new Map<string, number>();
      const counts = new Map<string, number>();
      for (const m of text.matchAll(new RegExp(`^${metric}_(sum|count)\\{([^}]*)\\} (\\S+)$`, 'gm')))
        (m[1] === 'sum' ? sums : counts).set(m[2]!, Number(m[3]));
      return [...sums].map(
        ([labels, sum]) =>
          `${labels}: ${((sum / (counts.get(labels) || 1)) * 1000).toFixed(2)} ms x${counts.get(labels)}`,
      );
    };
    console.log(
      [
        'resolution phases (mean):',
        ...means('scheduling_resolution_phase_seconds'),
        'pool wait:',
        ...means('scheduling_pg_pool_wait_seconds'),
        'redis:',
        ...means('scheduling_redis_duration_seconds'),
      ].join('\n  '),
    );
  }
  if (statsDb) {
    const { rows: top } =
      await statsDb.query(`SELECT calls, round(total_exec_time::numeric, 0) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
      FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 40`);
    console.table(top);
    await statsDb.end();
  }
  grpc?.close();
  await target.close();
} finally {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await stores.stop();
}
