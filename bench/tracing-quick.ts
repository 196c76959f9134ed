import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { renderReport, type BenchRow } from './bench-report.js';
import { createBenchClient, createHttpTarget, expectStatus, type BenchClient } from './bench-client.js';
import { addDays, firstBenchDate } from './bench-dates.js';
import { newPlatformKey, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { benchGet } from './get-load.js';
import { formatLoad, machineInfo } from './machine-info.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { measureRawBaseline } from './raw-baseline.js';
import { processCpuMs } from './process-cpu.js';
import { renderTable } from './report-table.js';
import { createResponseTally, formatStatusCounts, mergeStatusCounts, serverErrorCount } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * The cost of tracing (`npm run bench:tracing`): on fresh stores, one service process per mode started as `npm start`
 * starts it, all running from the start; round after round each scenario loads every mode in turn (the order rotating
 * from round to round), after a raw node:http hello-world measured at the same client counts in the same round. Each
 * figure is read against that round's raw baseline (service CPU per request, p50 and p99 as multiples of raw's, rate as
 * a share of raw's), and each mode against another by the median of its per-round ratios, so a machine whose load
 * drifts weighs on every mode alike.
 *   before: the service before tracing existed: `npm start` of the checkout at TRACING_BEFORE_TREE (a worktree of an
 *           older commit with its own node_modules, e.g. `git worktree add --detach ../before 2087879`)
 *   off: no OTEL_EXPORTER_OTLP_ENDPOINT (production default: nothing traced)
 *   on: OTEL_EXPORTER_OTLP_ENDPOINT at a stand-in collector on loopback (every request traced and exported over OTLP)
 *   sampled-out: the endpoint set, OTEL_TRACES_SAMPLER=always_off (the machinery without recording)
 * Scenarios (platform key + Service-Organization-Id): GET /api/v2/organizations/:id at 1 and 16 clients, POST
 * /api/v2/resolutions and resolve + hold + confirm (latency: hold + confirm) at QUICK_CLIENTS.
 *   QUICK_MODES=off,on (before,off,on with TRACING_BEFORE_TREE)   QUICK_SECONDS=3 (each measured phase)
 *   QUICK_ROUNDS=3   QUICK_CLIENTS=8   QUICK_PROVIDERS=80 (per mode; each has 80 one-hour slots in the two weeks)
 *   QUICK_SCENARIOS=get.c1,get.c16,resolve,book (a subset to run)
 */
const BEFORE_TREE = process.env.TRACING_BEFORE_TREE ? resolve(process.env.TRACING_BEFORE_TREE) : undefined;
const MODES = (process.env.QUICK_MODES ?? (BEFORE_TREE ? 'before,off,on' : 'off,on')).split(',') as Mode[];
const PHASE_MS = Number(process.env.QUICK_SECONDS ?? 3) * 1000;
const CLIENTS = Number(process.env.QUICK_CLIENTS ?? 8);
const ROUNDS = Number(process.env.QUICK_ROUNDS ?? 3);
const PROVIDERS = Number(process.env.QUICK_PROVIDERS ?? 80);
const SCENARIOS = (process.env.QUICK_SCENARIOS ?? 'get.c1,get.c16,resolve,book').split(',') as ScenarioName[];
const log = (line: string) => console.log(`[tracing ${new Date().toISOString().slice(11, 19)}] ${line}`);

type Mode = 'before' | 'off' | 'on' | 'sampled-out';
type ScenarioName = 'get.c1' | 'get.c16' | 'resolve' | 'book';
if (MODES.includes('before') && !BEFORE_TREE) throw new Error('mode `before` needs TRACING_BEFORE_TREE (a checkout)');
const CUSTOMER = { name: 'Trace Bench', email: 'trace-bench@example.org', timezone: 'America/New_York' };
const DAY = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
const WEEKDAYS = { monday: DAY, tuesday: DAY, wednesday: DAY, thursday: DAY, friday: DAY };

/** A stand-in OpenTelemetry collector: answers every OTLP/HTTP export 200 and counts them. */
async function startCollector() {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      exports++;
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ exports, bytes }),
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** An organization of `providers` providers, each with a 60-minute service and a weekday schedule. */
async function seedOrganization(platformKey: string, target: ReturnType<typeof createHttpTarget>, mode: Mode) {
  const created = expectStatus(
    await createBenchClient(target, { key: platformKey, tally }).post('/api/v2/organizations', {
      externalId: `bench-tracing-${mode}`,
      name: `Tracing bench (${mode})`,
    }),
    'POST /api/v2/organizations',
  );
  const organizationId = (created.body as { id: string }).id;
  const api = createBenchClient(target, {
    key: platformKey,
    headers: { 'service-organization-id': organizationId },
    tally,
  });
  const serviceIds: string[] = [];
  for (let i = 0; i < PROVIDERS; i++) {
    const p = expectStatus(
      await api.post('/api/v2/providers', { externalId: `p${i}`, displayName: `Dr. ${i}` }),
      'POST /api/v2/providers',
    ).body as { id: string };
    const s = expectStatus(
      await api.post('/api/v2/services', { providerId: p.id, title: 'Intake', duration: 60 }),
      'POST /api/v2/services',
    ).body as { id: string };
    expectStatus(
      await api.post('/api/v2/calendar-connections', {
        providerId: p.id,
        timezone: 'America/New_York',
        days: WEEKDAYS,
      }),
      'POST /api/v2/calendar-connections',
    );
    serviceIds.push(s.id);
  }
  return { organizationId, api, serviceIds };
}

/** Failures of a scenario by step, status and error code (noted on its measurement). */
function failureCounter() {
  const failures: Record<string, number> = {};
  return {
    failures,
    fail(step: string, r: { status: number; body: any }) {
      const code = `${step} ${r.status} ${r.body?.error?.code ?? ''}`.trim();
      failures[code] = (failures[code] ?? 0) + 1;
      return 'fail' as const;
    },
  };
}

/** Everything a scenario needs of one mode's service. */
interface Run {
  mode: Mode;
  target: ReturnType<typeof createHttpTarget>;
  seed: Awaited<ReturnType<typeof seedOrganization>>;
  ctx: MeasureContext;
  /** Per client, the turn it is at (the next service it resolves for) and the slots it booked. */
  next: Map<number, number>;
  taken: Set<string>;
}

/** POST /api/v2/resolutions for each client's services in turn (two weeks, 10 options per provider). */
function resolveOnce(run: Run, client: number, from: string) {
  const turn = run.next.get(client) ?? 0;
  run.next.set(client, turn + 1);
  const mine = run.seed.serviceIds.filter((_, i) => i % CLIENTS === client);
  const serviceId = mine[turn % mine.length]!;
  return run.seed.api.post(
    '/api/v2/resolutions',
    { serviceId, dateRange: { from, to: addDays(from, 13) }, maxOptionsPerProvider: 10 },
    { 'idempotency-key': randomUUID() },
  );
}

/** Measures scenario `name` on `run`'s service. */
async function measure(name: ScenarioName, run: Run, from: string): Promise<ScenarioMeasurement> {
  const id = `tracing.${run.mode}.${name}`;
  if (name === 'get.c1' || name === 'get.c16')
    return benchGet(
      {
        id,
        label: `${run.mode}: GET /api/v2/organizations/:id`,
        api: run.seed.api,
        path: `/api/v2/organizations/${run.seed.organizationId}`,
        concurrency: name === 'get.c1' ? 1 : 16,
        durationMs: PHASE_MS,
      },
      run.ctx,
    );
  const counter = failureCounter();
  const m = await measureScenario(
    name === 'resolve'
      ? {
          id,
          label: `${run.mode}: POST /api/v2/resolutions`,
          concurrency: CLIENTS,
          durationMs: PHASE_MS,
          task: async (client) => {
            const r = await resolveOnce(run, client, from);
            return r.status === 200 ? r.ms : counter.fail('resolve', r);
          },
        }
      : {
          // Each client books only its own providers' services and skips slots it booked before: no two round trips
          // meet on a slot. The latency is the hold's and the confirm's; the CPU per request counts all three.
          id,
          label: `${run.mode}: resolve + hold + confirm (p: hold + confirm)`,
          concurrency: CLIENTS,
          durationMs: PHASE_MS,
          task: async (client) => {
            const r = await resolveOnce(run, client, from);
            if (r.status !== 200) return counter.fail('resolve', r);
            // Availability read through caches may still offer a slot booked a moment ago: skip the ones taken here.
            const option = ((r.body.options ?? []) as any[]).find(
              (x) => !run.taken.has(`${x.provider.id} ${x.slot.start}`),
            );
            if (!option) return counter.fail('no option', r);
            run.taken.add(`${option.provider.id} ${option.slot.start}`);
            const base = `/api/v2/resolutions/${r.body.resolutionId}`;
            const h = await run.seed.api.post(`${base}/options/${option.optionId}/hold`, { ttlSeconds: 120 });
            if (h.status !== 200) return counter.fail('hold', h);
            const c = await run.seed.api.post(
              `${base}/confirm`,
              { optionId: option.optionId, holdId: h.body.holdId, customer: CUSTOMER },
              { 'idempotency-key': randomUUID() },
            );
            return c.status === 200 ? h.ms + c.ms : counter.fail('confirm', c);
          },
        },
    run.ctx,
  );
  m.notes.failures = JSON.stringify(counter.failures);
  return m;
}

/** The client count of a scenario (its raw baseline is measured at the same). */
const clientsOf = (name: ScenarioName) => (name === 'get.c1' ? 1 : name === 'get.c16' ? 16 : CLIENTS);

/** One measurement with the same round's raw baseline at its client count. */
interface Sample {
  m: ScenarioMeasurement;
  raw: ScenarioMeasurement;
}

/** The figures compared: each a multiple of raw's in the same round (rate: a share of raw's). */
const FIGURES = {
  cpu: (s: Sample) => s.m.cpuMsPerRequest.service / s.raw.cpuMsPerRequest.service,
  p50: (s: Sample) => s.m.latency.p50 / s.raw.latency.p50,
  p99: (s: Sample) => s.m.latency.p99 / s.raw.latency.p99,
  rate: (s: Sample) => s.m.perSecond / s.raw.perSecond,
};

const tally = createResponseTally();
const stores = await startBenchStores();
const collector = await startCollector();
const services: BenchService[] = [];
stopOnSignal(async () => {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await collector.stop();
  await stores.stop();
});
const loadAtStart = machineInfo().loadAverage;
try {
  const key = newPlatformKey();
  const from = firstBenchDate(Date.now());
  const runs: Run[] = [];
  for (const mode of MODES) {
    const env: Record<string, string> =
      mode === 'off' || mode === 'before'
        ? {}
        : {
            OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
            ...(mode === 'sampled-out' ? { OTEL_TRACES_SAMPLER: 'always_off' } : {}),
          };
    const root = mode === 'before' ? BEFORE_TREE : undefined;
    const service = await startBenchService(stores, key, `service-${mode}`, env, root);
    services.push(service);
    const target = createHttpTarget(service.url);
    log(`${mode}${root ? ` (${root})` : ''}: seeding ${PROVIDERS} providers`);
    const seed = await seedOrganization(key, target, mode);
    const ctx: MeasureContext = {
      tally,
      processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
      serviceUrl: service.url,
    };
    runs.push({ mode, target, seed, ctx, next: new Map(), taken: new Set() });
  }
  const samples = new Map<string, Sample[]>();
  const clientCounts = [...new Set(SCENARIOS.map(clientsOf))].sort((a, b) => a - b);
  for (let round = 1; round <= ROUNDS; round++) {
    const raw = await measureRawBaseline({ clients: clientCounts, durationMs: PHASE_MS, tally, log });
    // Each mode takes each place in the order in turn (A B C, B C A, C A B...).
    const order = runs.map((_, i) => runs[(i + round - 1) % runs.length]!);
    for (const name of SCENARIOS) {
      for (const run of order) {
        log(`round ${round}/${ROUNDS}, ${run.mode}: ${name}`);
        const m = await measure(name, run, from);
        const k = `${run.mode} ${name}`;
        const sample = { m, raw: raw.byClients.get(clientsOf(name))! };
        samples.set(k, [...(samples.get(k) ?? []), sample]);
        log(
          `  ${m.perSecond.toFixed(1)}/s, p50 ${m.latency.p50.toFixed(2)} ms, p99 ${m.latency.p99.toFixed(1)} ms, service CPU ${m.cpuMsPerRequest.service.toFixed(3)} ms/req (x${FIGURES.cpu(sample).toFixed(2)} raw's ${sample.raw.cpuMsPerRequest.service.toFixed(3)})`,
        );
      }
    }
  }
  // What each service spends with no request at all (background loops: timer claims, dispatchers, gauges), read after
  // the rounds: a service started a minute later than another still spends more for a while.
  const idle0 = runs.map((r) => processCpuMs(r.ctx.processes.service[0]!));
  await new Promise((r) => setTimeout(r, PHASE_MS));
  runs.forEach((r, i) =>
    log(
      `${r.mode} idle: ${(((processCpuMs(r.ctx.processes.service[0]!) - idle0[i]!) / PHASE_MS) * 1000).toFixed(1)} ms CPU/s`,
    ),
  );
  const { exports, bytes } = collector.counts();
  log(`the collector got ${exports} OTLP exports, ${(bytes / 1e6).toFixed(1)} MB`);
  const loadAtEnd = machineInfo().loadAverage;
  const rows: BenchRow[] = [];
  for (const name of SCENARIOS) for (const run of runs) rows.push(medianRow(samples.get(`${run.mode} ${name}`)!));
  console.log('');
  console.log(renderReport(rows));
  console.log('');
  console.log(
    `Each mode's figures as multiples of the same round's raw node:http (median of ${ROUNDS} rounds; service CPU per request, p50, p99; rate as a share):`,
  );
  console.log(
    renderTable(
      ['scenario', 'mode', 'CPU/req x raw', 'p50 x raw', 'p99 x raw', 'rate, share of raw'],
      SCENARIOS.flatMap((name) =>
        runs.map((run) => {
          const s = samples.get(`${run.mode} ${name}`)!;
          const x = (f: (s: Sample) => number) => `x${median(s.map(f)).toFixed(1)}`;
          return [
            name,
            run.mode,
            x(FIGURES.cpu),
            x(FIGURES.p50),
            x(FIGURES.p99),
            percentOf(median(s.map(FIGURES.rate))),
          ];
        }),
      ),
    ),
  );
  const pairs = comparedPairs(runs.map((r) => r.mode));
  if (pairs.length > 0) {
    console.log('');
    console.log(
      `Mode against mode: the median of the per-round ratios of the figures above (the rounds' lowest-highest in brackets); ${clientCounts.map((c) => `raw@${c}`).join(', ')} measured each round:`,
    );
    console.log(
      renderTable(
        ['scenario', 'compared', 'service CPU/req', 'p50', 'p99', 'rate'],
        SCENARIOS.flatMap((name) =>
          pairs.map(([a, b]) => {
            const sa = samples.get(`${a} ${name}`)!;
            const sb = samples.get(`${b} ${name}`)!;
            const cell = (f: (s: Sample) => number) => {
              const ratios = sa.map((s, i) => f(s) / f(sb[i]!));
              return `x${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}]`;
            };
            return [name, `${a} / ${b}`, cell(FIGURES.cpu), cell(FIGURES.p50), cell(FIGURES.p99), cell(FIGURES.rate)];
          }),
        ),
      ),
    );
  }
  const m = machineInfo();
  console.log('');
  console.log(
    `${m.cpuCount} x ${m.cpuModel}, Node ${m.node}; load average ${formatLoad(loadAtStart)} at the start, ${formatLoad(loadAtEnd)} at the end; ${new Date().toISOString()}`,
  );
  for (const run of runs) await run.target.close();
} finally {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await collector.stop();
  await stores.stop();
}

/** The pairs of modes compared: off against before, and every traced mode against off. */
function comparedPairs(modes: readonly Mode[]): [Mode, Mode][] {
  const pairs: [Mode, Mode][] = [];
  if (modes.includes('off') && modes.includes('before')) pairs.push(['off', 'before']);
  for (const m of modes) if (m !== 'off' && m !== 'before' && modes.includes('off')) pairs.push([m, 'off']);
  return pairs;
}

/** A share as a percentage. */
function percentOf(share: number): string {
  return `${(share * 100).toFixed(share >= 0.1 ? 1 : 2)}%`;
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One row of a scenario measured in several rounds: the median of each figure, the answers of all rounds. */
function medianRow(samples: Sample[]): BenchRow {
  const ms = samples.map((s) => s.m);
  const first = ms[0]!;
  const rate = median(ms.map((m) => m.perSecond));
  const statuses = ms.map((m) => m.statuses).reduce(mergeStatusCounts);
  const failed = ms.map((m) => m.notes.failures ?? '').filter((f) => f && f !== '{}');
  return {
    id: first.id,
    group: 'tracing',
    label: `${first.label}, ${first.concurrency} clients, median of ${ms.length}`,
    rate,
    unit: first.id.endsWith('.book') ? 'round trips' : 'req',
    p50: median(ms.map((m) => m.latency.p50)),
    p99: median(ms.map((m) => m.latency.p99)),
    share: median(samples.map(FIGURES.rate)),
    rawClients: first.concurrency,
    cpu: {
      service: median(ms.map((m) => m.cpuMsPerRequest.service)),
      postgres: median(ms.map((m) => m.cpuMsPerRequest.postgres)),
      redis: median(ms.map((m) => m.cpuMsPerRequest.redis)),
      generator: median(ms.map((m) => m.cpuMsPerRequest.generator)),
    },
    rssMb: Math.max(...ms.flatMap((m) => m.resources.serviceRssPeakMb)),
    serverErrors: serverErrorCount(statuses),
    answers: `${formatStatusCounts(statuses)}${ms.some((m) => m.failures) ? `; ${ms.reduce((n, m) => n + m.failures, 0)} failed` : ''}${failed.length ? ` ${failed.join(' ')}` : ''}`,
  };
}
