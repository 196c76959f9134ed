import { measurementRow, renderReport } from './bench-report.js';
import { createBenchClient, createHttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { overloadTargets, targetLine } from './bench-targets.js';
import { runClosedLoop } from './closed-loop.js';
import { keptSeed } from './kept-seed.js';
import { formatLoad, machineInfo } from './machine-info.js';
import type { MeasureContext } from './measure-scenario.js';
import { benchOverload, overloadRows } from './overload-bench.js';
import { baselineFor, measureRawBaseline } from './raw-baseline.js';
import { percent } from './report-table.js';
import { httpResolutionCaller } from './resolution-load.js';
import { benchResolutionReads } from './resolution-read-load.js';
import { CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';

/**
 * `npm run bench:overload`: the overload scenario of `npm run bench` alone, on the kept stores of `npm run
 * bench:quick` (BENCH_DIR, default /tmp/scheduling-bench-quick; seeded on first use). A raw node:http baseline first,
 * then the service with its default admission settings (or MAX_IN_FLIGHT_REQUESTS / ADMISSION_QUEUE_LENGTH /
 * ADMISSION_MAX_WAIT_MS / PG_POOL_MAX_WAITERS from this environment, to try a size): GET resolution at 32 clients,
 * then resolutions on the platform path with the ~10% mix at 1x (8 clients, the ordinary load) and at 4x (32 clients
 * waiting Retry-After when refused, then 32 sending again at once), then GET resolution at 32 clients again: no state
 * may stay stuck after the shedding.
 *   OVERLOAD_CLIENTS=8   OVERLOAD_SECONDS=10   OVERLOAD_QUIET_SECONDS=3
 */
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-quick';
const CLIENTS = Number(process.env.OVERLOAD_CLIENTS ?? 8);
const PHASE_MS = Number(process.env.OVERLOAD_SECONDS ?? 10) * 1000;
const QUIET_MS = Number(process.env.OVERLOAD_QUIET_SECONDS ?? 3) * 1000;
const log = (line: string) => console.log(`[overload ${new Date().toISOString().slice(11, 19)}] ${line}`);

const machine = machineInfo();
console.log(
  `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average ${formatLoad(machine.loadAverage)} (1/5/15 min); node ${machine.node}`,
);
const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [1, 8, 32], durationMs: 3000, tally, log });
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
  const settings = Object.fromEntries(
    ['MAX_IN_FLIGHT_REQUESTS', 'ADMISSION_QUEUE_LENGTH', 'ADMISSION_MAX_WAIT_MS', 'PG_POOL_MAX_WAITERS']
      .filter((k) => process.env[k] !== undefined)
      .map((k) => [k, process.env[k]!]),
  );
  // Its resolutions are never read back after the run: a short lifetime keeps the kept Redis from growing.
  service = await startBenchService(stores, seed.platformKey, 'service', {
    ...settings,
    RESOLUTION_TTL_SECONDS: '300',
  });
  log(`service started (admission settings ${JSON.stringify(settings)}; empty = the defaults)`);
  const target = createHttpTarget(service.url);
  const platform = createBenchClient(target, {
    key: seed.platformKey,
    headers: { 'service-organization-id': seed.organizationId },
    tally,
  });
  const call = httpResolutionCaller(platform);
  const rnd = createSeededRandom(Number(process.env.QUICK_SEED ?? 7));
  const firstDate = firstBenchDate(Date.now());
  const body = () =>
    resolutionBody(CONSTRAINT_MIXES.mix10, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 });
  // The first resolution loads the graph; then a few seconds of load warm the process up. Neither is measured.
  await call(body());
  await runClosedLoop({
    concurrency: CLIENTS,
    durationMs: 5000,
    task: async () => ((await call(body())).status === 200 ? 0 : 'fail'),
  });
  tally.take();
  const ctx: MeasureContext = {
    tally,
    processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
    serviceUrl: service.url,
  };
  const reads = (when: string) =>
    benchResolutionReads(
      {
        id: `resolution-read.platform.c32${when === 'after' ? '.after-overload' : ''}`,
        label: `GET /api/v2/resolutions/:id, platform+header, 32 clients, ${when} the overload phases`,
        api: platform,
        create: call,
        bodies: Array.from({ length: 64 }, body),
        concurrency: 32,
        durationMs: PHASE_MS,
      },
      ctx,
    );
  log('GET resolution, 32 clients, before');
  const before = await reads('before');
  const r = await benchOverload(
    {
      call,
      mix: CONSTRAINT_MIXES.mix10,
      rnd,
      serviceIds: seed.serviceIds,
      firstDate,
      clients: CLIENTS,
      phaseMs: PHASE_MS,
      quietMs: QUIET_MS,
      log,
    },
    ctx,
  );
  await new Promise((res) => setTimeout(res, QUIET_MS));
  log('GET resolution, 32 clients, after');
  const after = await reads('after');
  console.log('');
  console.log(
    renderReport([
      ...[...raw.byClients.values()].map((m) => measurementRow(raw, 'raw baseline', m)),
      measurementRow(raw, 'read', before, 'reads'),
      ...overloadRows(raw, r),
      measurementRow(raw, 'read', after, 'reads'),
    ]),
  );
  console.log('');
  for (const t of overloadTargets(r)) console.log(targetLine(t));
  for (const m of [before, after]) {
    const share = m.perSecond / baselineFor(raw, 32).perSecond;
    const refused = (m.statuses.byStatus['503'] ?? 0) + (m.prepStatuses.byStatus['503'] ?? 0);
    console.log(
      `${share >= 0.03 && refused === 0 ? 'met   ' : 'MISSED'}  [issue 22] ${m.label}: >= 3% of raw@32, no 503: ${percent(share)}, ${refused} x 503`,
    );
  }
  console.log(
    `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average at start ${formatLoad(machine.loadAverage)}, at end ${formatLoad(machineInfo().loadAverage)} (1/5/15 min)`,
  );
  await target.close();
} finally {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
