import { measurementRow, renderReport } from './bench-report.js';
import { createBenchClient, createHttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { runClosedLoop } from './closed-loop.js';
import { keptSeed } from './kept-seed.js';
import { formatLoad, machineInfo } from './machine-info.js';
import type { MeasureContext } from './measure-scenario.js';
import { benchOverload, overloadRows, overloadTargets } from './overload-bench.js';
import { measureRawBaseline } from './raw-baseline.js';
import { httpResolutionCaller } from './resolution-load.js';
import { CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';

/**
 * `npm run bench:overload`: the overload scenario of `npm run bench` alone, on the kept stores of `npm run
 * bench:quick` (BENCH_DIR, default /tmp/scheduling-bench-quick; seeded on first use). A raw node:http baseline first,
 * then the service with its default admission limits (or MAX_IN_FLIGHT_REQUESTS / MAX_IN_FLIGHT_CALLS /
 * PG_POOL_MAX_WAITERS from this environment, to try a size), resolutions on the platform path with the ~10% mix:
 * a sweep of client counts finds the sustainable load, then 1x and 4x of it.
 *   OVERLOAD_SWEEP=1,2,3,4,6,8   OVERLOAD_SWEEP_SECONDS=4   OVERLOAD_SECONDS=10
 */
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-quick';
const SWEEP = (process.env.OVERLOAD_SWEEP ?? '1,2,3,4,6,8').split(',').map(Number);
const SWEEP_MS = Number(process.env.OVERLOAD_SWEEP_SECONDS ?? 4) * 1000;
const PHASE_MS = Number(process.env.OVERLOAD_SECONDS ?? 10) * 1000;
const log = (line: string) => console.log(`[overload ${new Date().toISOString().slice(11, 19)}] ${line}`);

const machine = machineInfo();
console.log(
  `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average ${formatLoad(machine.loadAverage)} (1/5/15 min); node ${machine.node}`,
);
const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [1, 2, 4, 8, 16, 32], durationMs: 3000, tally, log });
const stores = await startBenchStores({ keepDir: DIR });
let service: BenchService | undefined;
stopOnSignal(async () => {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
});
try {
  const seed = await keptSeed({
    dir: DIR,
    stores,
    providerCount: Number(process.env.BENCH_PROVIDERS ?? 10_000),
    tally,
    log,
  });
  const limits = Object.fromEntries(
    ['MAX_IN_FLIGHT_REQUESTS', 'MAX_IN_FLIGHT_CALLS', 'PG_POOL_MAX_WAITERS'].map((k) => [k, process.env[k] ?? '']),
  );
  // Its resolutions are never read back: a short lifetime keeps the kept Redis from growing by thousands an hour.
  service = await startBenchService(stores, seed.platformKey, 'service', { ...limits, RESOLUTION_TTL_SECONDS: '300' });
  log(`service started (admission settings ${JSON.stringify(limits)}; empty = default)`);
  const target = createHttpTarget(service.url);
  const call = httpResolutionCaller(
    createBenchClient(target, {
      key: seed.platformKey,
      headers: { 'service-organization-id': seed.organizationId },
      tally,
    }),
  );
  const rnd = createSeededRandom(Number(process.env.QUICK_SEED ?? 7));
  const firstDate = firstBenchDate(Date.now());
  const body = () =>
    resolutionBody(CONSTRAINT_MIXES.mix10, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 });
  // The first resolution loads the graph; then a few seconds of load warm the process up. Neither is measured.
  await call(body());
  await runClosedLoop({
    concurrency: 4,
    durationMs: 5000,
    task: async () => ((await call(body())).status === 200 ? 0 : 'fail'),
  });
  tally.take();
  const ctx: MeasureContext = {
    tally,
    processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
  };
  const r = await benchOverload(
    {
      call,
      mix: CONSTRAINT_MIXES.mix10,
      rnd,
      serviceIds: seed.serviceIds,
      firstDate,
      serviceUrl: service.url,
      raw,
      sweep: SWEEP,
      sweepMs: SWEEP_MS,
      phaseMs: PHASE_MS,
      log,
    },
    ctx,
  );
  console.log('');
  console.log(
    renderReport([
      ...[...raw.byClients.values()].map((m) => measurementRow(raw, 'raw baseline', m)),
      ...overloadRows(raw, r),
    ]),
  );
  console.log('');
  for (const t of overloadTargets(r)) console.log(`${t.met ? 'met   ' : 'MISSED'}  ${t.target}: ${t.measured}`);
  console.log(
    `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average at start ${formatLoad(machine.loadAverage)}, at end ${formatLoad(machineInfo().loadAverage)} (1/5/15 min)`,
  );
  await target.close();
} finally {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
