import { measurementRow, renderReport, type BenchRow } from './bench-report.js';
import { createBenchClient, createHttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { keptSeed, readKeptSeed } from './kept-seed.js';
import type { MeasureContext, ScenarioMeasurement } from './measure-scenario.js';
import { processTreeCpuMs } from './process-cpu.js';
import { startResourceProbe } from './resource-probe.js';
import { measureRawBaseline } from './raw-baseline.js';
import { benchResolutions, httpResolutionCaller } from './resolution-load.js';
import { benchResolutionReads } from './resolution-read-load.js';
import { CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';

/**
 * Several processes per host (`npm run bench:procs`): the same service at SERVICE_PROCESSES=1 and then 2 (node:cluster
 * workers sharing one port) on the same stores and organization (seeded once into BENCH_DIR, default
 * /tmp/scheduling-bench-procs), loaded with POST resolutions (the ~10% constraint mix, platform path) and
 * GET /api/v2/resolutions/:id, each as a share of a raw node:http hello-world at the same client count. The service CPU
 * per request sums the workers (the primary's own CPU, handing out connections, is printed apart). Prints the
 * 2-process figures as ratios to the 1-process ones. A phase after the closed loop offers the same fixed rate of resolutions to both
 * (PROCS_PACED_RATE, default 40/s, unsaturated): its CPU per request is the comparison a closed loop at saturation
 * cannot give on two shared cores.
 *   PROCS_SECONDS=8 (each measured phase)   PROCS_CLIENTS=8 (resolutions; reads use 4x)   BENCH_PROVIDERS=1000
 */
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-procs';
const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 1000);
const PHASE_MS = Number(process.env.PROCS_SECONDS ?? 8) * 1000;
const CLIENTS = Number(process.env.PROCS_CLIENTS ?? 8);
const READ_CLIENTS = CLIENTS * 4;
/** The fixed offered rate of the paced phase (resolutions/s), well under what one process serves. */
const PACED_RATE = Number(process.env.PROCS_PACED_RATE ?? 40);
const PACED_CLIENTS = 4;
/** How long the serving processes are watched with no request, for their idle CPU. */
const IDLE_MS = 4000;
const MIX = CONSTRAINT_MIXES.mix10;
const log = (line: string) => console.log(`[procs ${new Date().toISOString().slice(11, 19)}] ${line}`);

/**
 * The processes that serve: the workers its banner names (SERVICE_PROCESSES > 1), else the process itself. Not the
 * primary with its workers: the probe counts a process's whole tree, so the workers would be counted twice.
 */
function servingPids(s: BenchService): number[] {
  const m = /processes: +\d+ workers \(pids ([\d, ]+)\)/.exec(s.process.output());
  return m ? m[1]!.split(',').map((p) => Number(p.trim())) : [s.pid];
}

/** CPU (ms) the primary itself used so far: its tree less its workers' (0 with one process: no primary). */
function primaryOwnCpuMs(s: BenchService, workers: readonly number[]): number {
  if (workers.length === 1 && workers[0] === s.pid) return 0;
  return processTreeCpuMs(s.pid) - workers.reduce((sum, pid) => sum + processTreeCpuMs(pid), 0);
}

readKeptSeed(DIR);
const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [CLIENTS, READ_CLIENTS], durationMs: 4000, tally, log });
const stores = await startBenchStores({ keepDir: DIR });
let service: BenchService | undefined;
stopOnSignal(async () => {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
});
try {
  const seed = await keptSeed({ dir: DIR, stores, providerCount: PROVIDERS, tally, log });
  const rows: BenchRow[] = [];
  let primaryLine = '';
  const measured = new Map<
    number,
    {
      paced: ScenarioMeasurement;
      resolve: ScenarioMeasurement;
      read: ScenarioMeasurement;
      idleCpuMsPerSecond: number;
    }
  >();
  for (const procs of [1, 2]) {
    service = await startBenchService(stores, seed.platformKey, `procs-${procs}`, {
      SERVICE_PROCESSES: String(procs),
    });
    const pids = servingPids(service);
    log(`SERVICE_PROCESSES=${procs}: ready in ${service.startMs.toFixed(0)} ms, serving pids ${pids.join(', ')}`);
    const primaryBefore = primaryOwnCpuMs(service, pids);
    const target = createHttpTarget(service.url);
    const platform = createBenchClient(target, {
      key: seed.platformKey,
      headers: { 'service-organization-id': seed.organizationId },
      tally,
    });
    const call = httpResolutionCaller(platform);
    const ctx: MeasureContext = {
      tally,
      processes: { service: pids, postgres: stores.postgresPid, redis: stores.redisPid },
    };
    const rnd = createSeededRandom(7);
    const firstDate = firstBenchDate(Date.now());
    // Every worker loads the graph on its first resolution: untimed rounds on as many connections as the timed phase
    // (the primary deals connections out in turn, so each worker gets some) load it everywhere first.
    for (let round = 0; round < 3; round++)
      await Promise.all(
        Array.from({ length: CLIENTS }, () =>
          call(resolutionBody(MIX, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 })),
        ),
      );
    log(`POST resolutions, ${MIX.id}, ${CLIENTS} clients, ${procs} process(es), ${PHASE_MS / 1000} s`);
    const resolve = await benchResolutions(
      {
        id: `procs.p${procs}.resolution.c${CLIENTS}`,
        label: `POST resolutions, ${MIX.id}, ${CLIENTS} clients, SERVICE_PROCESSES=${procs}`,
        call,
        mix: MIX,
        rnd,
        serviceIds: seed.serviceIds,
        firstDate,
        providerCount: seed.providerCount,
        concurrency: CLIENTS,
        durationMs: PHASE_MS,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'procs', resolve, 'resolutions', seed.providerCount));
    // What the serving processes spend with no request at all (timers, pollers, gauges): each process pays it, so at a
    // low offered rate it weighs on the CPU per request of more processes; the paced line is also given net of it.
    const idleProbe = startResourceProbe(ctx.processes);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleCpuMsPerSecond = idleProbe.stop().serviceCpuMs / (IDLE_MS / 1000);
    log(`idle: the serving processes used ${idleCpuMsPerSecond.toFixed(1)} ms of CPU per second with no request`);
    // The same offered rate at 1 and 2 processes, neither saturated: CPU per request without the contention of a
    // closed loop that keeps every core of this 2-core machine busy. It runs after the closed loop, which warmed every
    // worker's JIT and graph.
    log(`POST resolutions, ${MIX.id}, paced at ${PACED_RATE}/s, ${procs} process(es), ${PHASE_MS / 1000} s`);
    const paced = await benchResolutions(
      {
        id: `procs.p${procs}.resolution.paced${PACED_RATE}`,
        label: `POST resolutions, ${MIX.id}, ${PACED_RATE}/s offered (${PACED_CLIENTS} paced clients), SERVICE_PROCESSES=${procs}`,
        call,
        mix: MIX,
        rnd,
        serviceIds: seed.serviceIds,
        firstDate,
        providerCount: seed.providerCount,
        concurrency: PACED_CLIENTS,
        durationMs: PHASE_MS,
        paceMs: (PACED_CLIENTS * 1000) / PACED_RATE,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'procs', paced, 'resolutions', seed.providerCount));
    log(`GET /api/v2/resolutions/:id, ${READ_CLIENTS} clients, ${procs} process(es), ${PHASE_MS / 1000} s`);
    const read = await benchResolutionReads(
      {
        id: `procs.p${procs}.read.c${READ_CLIENTS}`,
        label: `GET /api/v2/resolutions/:id, ${READ_CLIENTS} clients, SERVICE_PROCESSES=${procs}`,
        api: platform,
        create: call,
        bodies: Array.from({ length: 64 }, () =>
          resolutionBody(MIX, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 }),
        ),
        concurrency: READ_CLIENTS,
        durationMs: PHASE_MS,
      },
      ctx,
    );
    rows.push(measurementRow(raw, 'procs', read, 'reads'));
    measured.set(procs, { paced, resolve, read, idleCpuMsPerSecond });
    if (procs > 1)
      primaryLine = `the primary (${service.pid}) used ${(primaryOwnCpuMs(service, pids) - primaryBefore).toFixed(0)} ms of CPU over the three phases at ${procs} processes (${paced.statuses.total + resolve.statuses.total + read.statuses.total} answers; not in the CPU column)`;
    await target.close();
    await service.process.stop();
    service = undefined;
  }
  console.log('');
  console.log(renderReport(rows));
  console.log('');
  console.log(primaryLine);
  const one = measured.get(1)!;
  const two = measured.get(2)!;
  // Net of idle: the paced phase's CPU less what the processes spend with no request over its length.
  const net = (m: { paced: ScenarioMeasurement; idleCpuMsPerSecond: number }) =>
    (m.paced.resources.serviceCpuMs - m.idleCpuMsPerSecond * (m.paced.elapsedMs / 1000)) / m.paced.statuses.total;
  console.log(
    `idle CPU of the serving processes: ${one.idleCpuMsPerSecond.toFixed(1)} ms/s at 1 process, ` +
      `${two.idleCpuMsPerSecond.toFixed(1)} ms/s at 2; paced CPU per request net of it: ` +
      `${net(one).toFixed(2)} -> ${net(two).toFixed(2)} ms (${(net(two) / net(one)).toFixed(2)}x)`,
  );
  const kinds = {
    paced: `POST resolutions at ${PACED_RATE}/s offered`,
    resolve: `POST resolutions, ${CLIENTS} clients (saturated)`,
    read: `GET resolution, ${READ_CLIENTS} clients`,
  };
  for (const kind of ['paced', 'resolve', 'read'] as const)
    console.log(
      `${kinds[kind]}: 2 processes / 1 process = ` +
        `${(two[kind].perSecond / one[kind].perSecond).toFixed(2)}x throughput, ` +
        `${(two[kind].cpuMsPerRequest.service / one[kind].cpuMsPerRequest.service).toFixed(2)}x service CPU per request ` +
        `(${one[kind].cpuMsPerRequest.service.toFixed(2)} -> ${two[kind].cpuMsPerRequest.service.toFixed(2)} ms)`,
    );
} finally {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
