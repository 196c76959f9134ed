import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createBenchClient } from './bench-client.js';
import { startBenchStores, type BenchStores } from './bench-stores.js';
import { firstBenchDate } from './bench-dates.js';
import { benchContention, type ContentionResult } from './contention-bench.js';
import { benchHelloWorld, type HelloWorldResult } from './hello-world.js';
import { benchHoldConfirm, type HoldConfirmResult } from './hold-confirm-bench.js';
import { formatLoad, machineInfo } from './machine-info.js';
import { ms, perSec, renderTable, sec, verdict } from './report-table.js';
import { benchResolutions, type ResolutionBenchResult } from './resolution-bench.js';
import { typicalResolutionBody } from './resolution-requests.js';
import { createSeededRandom } from './seeded-random.js';
import { seedOrganization, type SeededOrganization } from './seed-organization.js';
import { newPlatformKey, startBenchService, type BenchService } from './startup-bench.js';
import { benchStackFloor, type StackFloorResult } from './stack-floor-bench.js';
import { benchV1Create, type V1CreateResult } from './v1-create-bench.js';
import { startServiceProcess, type ServiceProcess } from '../test/helpers/service-process.js';

/** Bench entry point (`npm run bench`): every scenario in one run, then one table of figures. */

const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 10_000);
const CLIENTS = 8;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 1);
const children: ServiceProcess[] = [];
const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

let stores: BenchStores | undefined;
let running: BenchService | undefined;
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await running?.service.stop().catch((err) => console.error(`bench: stopping the service failed: ${String(err)}`));
  for (const c of children) await c.stop().catch((err) => console.error(`bench: stopping a service process failed: ${String(err)}`));
  await stores?.stop();
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { void shutdown().finally(() => process.exit(130)); });

async function main() {
  const machine = machineInfo();
  console.log(`machine: ${machine.cpuCount} x ${machine.cpuModel}; ${machine.totalMemoryGb.toFixed(1)} GB RAM (${machine.freeMemoryGb.toFixed(1)} GB free); node ${machine.node}; load average ${formatLoad(machine.loadAverage)}`);
  console.log(`providers: ${PROVIDERS}; clients: ${CLIENTS}; the service runs in this process (with the load generator) except in the run measuring its own RSS (${PROCESSES} process(es))`);

  log('baseline: Koa hello-world, 8 clients, 5 s');
  const hello: HelloWorldResult = await benchHelloWorld({ concurrency: CLIENTS, durationMs: 5000 });

  log('starting private Redis and embedded PostgreSQL');
  stores = await startBenchStores();
  const platformKey = newPlatformKey();
  running = await startBenchService(stores, platformKey);
  const emptyStartMs = running.startMs;
  log(`service started on empty stores in ${ms(emptyStartMs)}`);

  const nowMs = Date.now();
  const firstDate = firstBenchDate(nowMs);
  const rnd = createSeededRandom(20_260_301);
  const seed: SeededOrganization = await seedOrganization({
    baseUrl: running.url, platformKey, providerCount: PROVIDERS, rowsPerImport: 500, concurrency: 16, existingBookings: 200, firstDate, nowMs, rnd, log,
  });

  log('restarting the service on the seeded stores');
  await running.service.stop();
  running = undefined;
  running = await startBenchService(stores, platformKey);
  const seededStartMs = running.startMs;
  const api = createBenchClient(running.url, seed.orgKey);
  const serviceIds = seed.providers.map((p) => p.serviceId);
  const t0 = performance.now();
  const cold = await api.post('/api/v2/resolutions', typicalResolutionBody(rnd, { serviceIds, from: firstDate, days: 14 }), { 'idempotency-key': randomUUID() });
  const coldMs = performance.now() - t0;
  if (cold.status !== 200) throw new Error(`first resolution after restart: HTTP ${cold.status} ${JSON.stringify(cold.body).slice(0, 300)}`);

  // The timed scenarios run against the in-process service, like the hello-world baseline; the load generator
  // then shares the service's process. A second resolution run loads separate service processes (as deployed, with
  // a round-robin over them when BENCH_PROCESSES > 1) to measure the service's own memory.
  log('stack floor: GET /api/v2/resolutions/:id and GET /api/v2/organizations/:id, 8 clients, 5 s each');
  const floors: StackFloorResult[] = [];
  for (const path of [`/api/v2/resolutions/${cold.body.resolutionId}`, `/api/v2/organizations/${seed.organizationId}`]) {
    floors.push(await benchStackFloor({ api, path, concurrency: CLIENTS, durationMs: 5000 }));
  }
  log('resolutions: 1 client 5 s, then 8 clients 15 s');
  const res: ResolutionBenchResult = await benchResolutions({ servicePids: [process.pid], api, rnd, serviceIds, firstDate, concurrency: CLIENTS, durationMs: 15_000, singleClientMs: 5000, warmup: 20 });
  log(`resolutions against ${PROCESSES} service process(es) of their own: 8 clients 10 s`);
  for (let i = 0; i < PROCESSES; i++) {
    children.push(await startServiceProcess({ databaseUrl: stores.databaseUrl, redisUrl: stores.redisUrl, platformKey, dataDir: stores.dir, env: { RATE_LIMIT_PER_MINUTE: '100000000', RESOLUTION_TTL_SECONDS: '3600' } }));
  }
  const apart: ResolutionBenchResult = await benchResolutions({ servicePids: children.map((c) => c.pid), api: createBenchClient(children.map((c) => c.url), seed.orgKey), rnd, serviceIds, firstDate, concurrency: CLIENTS, durationMs: 10_000, singleClientMs: 0, warmup: 20 });
  for (const c of children.splice(0)) await c.stop();
  log('hold + confirm round trips');
  const hc: HoldConfirmResult = await benchHoldConfirm({ api, rnd, serviceIds, firstDate, usedProviderIds: seed.usedProviderIds, poolSize: 5000, prepareMaxMs: 90_000, concurrency: CLIENTS, durationMs: 10_000, singleClientMs: 5000 });
  log('v1 create (slots + booking)');
  const v1: V1CreateResult = await benchV1Create({ api, providers: seed.providers, usedProviderIds: seed.usedProviderIds, firstDate, concurrency: CLIENTS, durationMs: 10_000 });
  log('contention: 200 confirms on one slot');
  const ct: ContentionResult = await benchContention({ api, providerId: seed.contention.providerId, serviceId: seed.contention.serviceId, firstDate, count: 200 });
  const endLoad = machineInfo().loadAverage;

  printReport({ machineLoad: machine.loadAverage, endLoad, hello, emptyStartMs, seededStartMs, coldMs, seed, floors, res, apart, hc, v1, ct });
}

function printReport(r: { machineLoad: number[]; endLoad: number[]; hello: HelloWorldResult; emptyStartMs: number; seededStartMs: number; coldMs: number; seed: SeededOrganization; floors: StackFloorResult[]; res: ResolutionBenchResult; apart: ResolutionBenchResult; hc: HoldConfirmResult; v1: V1CreateResult; ct: ContentionResult }) {
  const { hello, seed, res, apart, hc, v1, ct } = r;
  const imp = seed.importResult;
  const rows: string[][] = [
    ['baseline', 'Koa hello-world, 8 clients, 5 s', `${perSec(hello.requestsPerSecond)} req`, `p50 ${ms(hello.latency.p50)}, p99 ${ms(hello.latency.p99)}`, ''],
    ['start-up', 'private Redis start', ms(stores!.redisStartMs), '', ''],
    ['start-up', 'embedded PostgreSQL initdb + start', ms(stores!.postgresStartMs), '', ''],
    ['start-up', 'startService, empty stores (migrations, bootstrap, listen)', ms(r.emptyStartMs), '', ''],
    ['start-up', `startService, seeded stores (${seed.providers.length + 1} providers)`, ms(r.seededStartMs), '', ''],
    ['start-up', 'first resolution after restart (graph load)', ms(r.coldMs), '', ''],
    ['import', `${imp.calls} calls x ${imp.rowsPerCall} providers, until all completed`, sec(imp.wallMs), `${perSec((imp.created / imp.wallMs) * 1000)} providers`, `submit ${ms(imp.submitMs)}; created ${imp.created}, invalid ${imp.invalid}, failed jobs ${imp.failedJobs}`],
    ['seed', `${seed.providers.length} services (POST /api/v2/services, 16 in flight)`, sec(seed.servicesMs), perSec((seed.providers.length / seed.servicesMs) * 1000), ''],
    ['seed', `${seed.providers.length} schedules (POST /api/v2/calendar-connections, 16 in flight)`, sec(seed.schedulesMs), perSec((seed.providers.length / seed.schedulesMs) * 1000), ''],
    ['seed', `existing bookings (resolve + confirm, 16 in flight)`, sec(seed.bookingsMs), `${seed.bookingsMade}/${seed.bookingsAttempted} made`, ''],
    ...r.floors.map((f) => ['stack floor', `GET ${f.path.replace(/\/[a-z]{3}_[0-9a-z]+$/, '/:id')}, 8 clients, 5 s`, `${perSec(f.requestsPerSecond)} req`, `p50 ${ms(f.latency.p50)}, p99 ${ms(f.latency.p99)}`, `failures ${f.failures}; the cheapest authenticated call through gateway + gRPC`]),
    ['resolution', 'POST /api/v2/resolutions, 14 days, 8 clients, 15 s', perSec(res.resolutionsPerSecond), `p50 ${ms(res.latency.p50)} (target 15: ${verdict(res.latency.p50, 15)}), p99 ${ms(res.latency.p99)} (target 50: ${verdict(res.latency.p99, 50)})`, `n ${res.latency.count}, mean ${ms(res.latency.mean)}, max ${ms(res.latency.max)}; resolved ${res.resolved}, zero_results ${res.zeroResults}, failures ${res.failures} ${JSON.stringify(res.failureCodes)}`],
    ['resolution', 'same, 1 client back to back, 5 s', perSec(1000 / res.singleClient.mean), `p50 ${ms(res.singleClient.p50)}, p99 ${ms(res.singleClient.p99)}`, `n ${res.singleClient.count}`],
    ['resolution', 'mean evaluatedSlots / optionsReturned / eligible / scanned', `${res.meanEvaluatedSlots.toFixed(0)} / ${res.meanOptionsReturned.toFixed(1)} / ${res.meanEligibleProviders.toFixed(0)} / ${res.meanProvidersScanned.toFixed(0)}`, '', ''],
    ['resolution', 'RSS of the bench process (service + load generator), 8 clients', `peak ${res.rssPeakMb[0]!.toFixed(0)} MB`, '', `end ${res.rssEndMb[0]!.toFixed(0)} MB`],
    ['resolution', `same load against ${apart.rssPeakMb.length} service process(es) of their own, 8 clients, 10 s`, perSec(apart.resolutionsPerSecond), `p50 ${ms(apart.latency.p50)}, p99 ${ms(apart.latency.p99)}`, `n ${apart.latency.count}, failures ${apart.failures} ${JSON.stringify(apart.failureCodes)}`],
    ['resolution', 'RSS of those service processes (the service alone)', `peak ${apart.rssPeakMb.map((m) => m.toFixed(0)).join(' / ')} MB`, `target 400 MB: ${verdict(Math.max(...apart.rssPeakMb), 400)}`, `end ${apart.rssEndMb.map((m) => m.toFixed(0)).join(' / ')} MB`],
    ['hold+confirm', `round trip (hold, then confirm with it), 8 clients`, `${perSec(hc.roundTripsPerSecond)} round trips`, `p50 ${ms(hc.roundTrip.p50)}, p99 ${ms(hc.roundTrip.p99)} (target 25: ${verdict(hc.roundTrip.p99, 25)})`, `n ${hc.roundTrip.count}; hold p50/p99 ${ms(hc.hold.p50)}/${ms(hc.hold.p99)}; confirm p50/p99 ${ms(hc.confirm.p50)}/${ms(hc.confirm.p99)}; failures ${hc.failures} ${JSON.stringify(hc.failureCodes)}${hc.poolExhausted ? '; stopped: pool used up' : ''}`],
    ['hold+confirm', 'same, 1 client back to back, 5 s', `${perSec(1000 / hc.singleClient.mean)} round trips`, `p50 ${ms(hc.singleClient.p50)}, p99 ${ms(hc.singleClient.p99)}`, `n ${hc.singleClient.count}`],
    ['hold+confirm', `pool: resolutions made beforehand (1-2 day windows)`, `${hc.attempted} in ${sec(hc.prepareMs)}`, `${perSec((hc.attempted / hc.prepareMs) * 1000)} (8 clients)`, `${hc.prepared} with an option far from every other round trip's slot`],
  ];
  if (v1.skipped) rows.push(['v1 create', 'GET /api/v1/slots + POST /api/v1/bookings', 'SKIPPED', v1.reason, '']);
  else rows.push(['v1 create', 'GET /api/v1/slots + POST /api/v1/bookings, 8 clients, 10 s', `${perSec(v1.bookingsPerSecond)} bookings`, `pair p50 ${ms(v1.pair.p50)}, p99 ${ms(v1.pair.p99)}`, `n ${v1.pair.count}; slots p50/p99 ${ms(v1.slots.p50)}/${ms(v1.slots.p99)}; create p50/p99 ${ms(v1.create.p50)}/${ms(v1.create.p99)}; failures ${v1.failures} ${JSON.stringify(v1.failureCodes)}`]);
  rows.push(['contention', `${ct.confirms} concurrent confirms on one slot`, `winners: ${ct.wins} (${ct.wins === 1 && ct.bookingsAtSlot === 1 ? 'OK: exactly one' : 'CHECK FAILED'})`, `409 p50 ${ms(ct.conflictLatency.p50)}, p99 ${ms(ct.conflictLatency.p99)}`, `409s ${ct.conflicts} ${JSON.stringify(ct.conflictCodes)}; other ${JSON.stringify(ct.others)}; winner ${ms(ct.winLatency)}; all answered in ${ms(ct.wallMs)}; ${ct.sameSlot}/${ct.resolutions} resolutions offered ${ct.slot}; bookings at that slot read back: ${ct.bookingsAtSlot}`]);
  console.log('');
  console.log(renderTable(['scenario', 'what', 'result', 'latency / target', 'notes'], rows));
  console.log('');
  console.log(`load average at start ${formatLoad(r.machineLoad)}, at end ${formatLoad(r.endLoad)} (1/5/15 min)`);
}

try {
  await main();
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await shutdown();
}
