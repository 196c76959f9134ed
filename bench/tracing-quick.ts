import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderReport, shareOfRaw, type BenchRow } from './bench-report.js';
import { createBenchClient, createHttpTarget, expectStatus, type BenchClient } from './bench-client.js';
import { addDays, firstBenchDate } from './bench-dates.js';
import { newPlatformKey, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { benchGet } from './get-load.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally, formatStatusCounts, mergeStatusCounts, serverErrorCount } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * The cost of tracing (`npm run bench:tracing`): on fresh stores, one service process per mode started as `npm start`
 * starts it, each loaded in turn, round after round, with a GET (`GET /api/v2/organizations/:id`) and a booking round
 * trip (resolve, hold, confirm) from 8 clients; each row is the median of its rounds, as a share of a raw node:http
 * hello-world measured in the same run.
 *   off: no OTEL_EXPORTER_OTLP_ENDPOINT (production default: nothing traced)
 *   on: OTEL_EXPORTER_OTLP_ENDPOINT at a stand-in collector on loopback (every request traced and exported over OTLP)
 *   sampled-out: the endpoint set, OTEL_TRACES_SAMPLER=always_off (the machinery without recording)
 *   QUICK_MODES=off,on   QUICK_SECONDS=3 (each measured phase)   QUICK_ROUNDS=3   QUICK_CLIENTS=8
 *   QUICK_PROVIDERS=80 (per mode; each has 80 one-hour slots in the two weeks booked)
 */
const MODES = (process.env.QUICK_MODES ?? 'off,on').split(',') as Mode[];
const PHASE_MS = Number(process.env.QUICK_SECONDS ?? 3) * 1000;
const CLIENTS = Number(process.env.QUICK_CLIENTS ?? 8);
const ROUNDS = Number(process.env.QUICK_ROUNDS ?? 3);
const PROVIDERS = Number(process.env.QUICK_PROVIDERS ?? 80);
const log = (line: string) => console.log(`[tracing ${new Date().toISOString().slice(11, 19)}] ${line}`);

type Mode = 'off' | 'on' | 'sampled-out';
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

/**
 * Resolve, hold the first option, confirm it, from `concurrency` clients; each client books only its own providers'
 * services and skips slots it booked before (no two round trips meet on a slot). The row's latency is the confirm's.
 */
async function benchConfirm(
  o: { id: string; label: string; api: BenchClient; serviceIds: string[]; from: string; durationMs: number },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const next = new Map<number, number>();
  const taken = new Set<string>();
  const failures: Record<string, number> = {};
  const fail = (step: string, r: { status: number; body: any }) => {
    const code = `${step} ${r.status} ${r.body?.error?.code ?? ''}`.trim();
    failures[code] = (failures[code] ?? 0) + 1;
    return 'fail' as const;
  };
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: CLIENTS,
      durationMs: o.durationMs,
      task: async (client) => {
        const turn = next.get(client) ?? 0;
        next.set(client, turn + 1);
        const mine = o.serviceIds.filter((_, i) => i % CLIENTS === client);
        const serviceId = mine[turn % mine.length]!;
        const r = await o.api.post(
          '/api/v2/resolutions',
          { serviceId, dateRange: { from: o.from, to: addDays(o.from, 13) }, maxOptionsPerProvider: 10 },
          { 'idempotency-key': randomUUID() },
        );
        if (r.status !== 200) return fail('resolve', r);
        // Availability read through caches may still offer a slot booked a moment ago: skip the ones taken here.
        const option = ((r.body.options ?? []) as any[]).find((x) => !taken.has(`${x.provider.id} ${x.slot.start}`));
        if (!option) return fail('no option', r);
        taken.add(`${option.provider.id} ${option.slot.start}`);
        const base = `/api/v2/resolutions/${r.body.resolutionId}`;
        const h = await o.api.post(`${base}/options/${option.optionId}/hold`, { ttlSeconds: 120 });
        if (h.status !== 200) return fail('hold', h);
        const c = await o.api.post(
          `${base}/confirm`,
          { optionId: option.optionId, holdId: h.body.holdId, customer: CUSTOMER },
          { 'idempotency-key': randomUUID() },
        );
        return c.status === 200 ? c.ms : fail('confirm', c);
      },
    },
    ctx,
  );
  m.notes.failures = JSON.stringify(failures);
  return m;
}

const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [CLIENTS], durationMs: PHASE_MS, tally, log });
const stores = await startBenchStores();
const collector = await startCollector();
const services: BenchService[] = [];
stopOnSignal(async () => {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await collector.stop();
  await stores.stop();
});
try {
  const key = newPlatformKey();
  const from = firstBenchDate(Date.now());
  // Every mode's service runs from the start and the rounds alternate between them, so a machine whose load drifts
  // (other work on its cores) weighs on every mode alike.
  const runs = [];
  for (const mode of MODES) {
    const env: Record<string, string> =
      mode === 'off'
        ? {}
        : {
            OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
            ...(mode === 'sampled-out' ? { OTEL_TRACES_SAMPLER: 'always_off' } : {}),
          };
    const service = await startBenchService(stores, key, `service-${mode}`, env);
    services.push(service);
    const target = createHttpTarget(service.url);
    log(`tracing ${mode}: seeding ${PROVIDERS} providers`);
    const seed = await seedOrganization(key, target, mode);
    const ctx: MeasureContext = {
      tally,
      processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
      serviceUrl: service.url,
    };
    runs.push({ mode, target, seed, ctx, get: [] as ScenarioMeasurement[], confirm: [] as ScenarioMeasurement[] });
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const run of runs) {
      log(`round ${round}/${ROUNDS}, tracing ${run.mode}: GET /api/v2/organizations/:id, ${CLIENTS} clients`);
      run.get.push(
        await benchGet(
          {
            id: `tracing.${run.mode}.org-get.c${CLIENTS}`,
            label: `tracing ${run.mode}: GET /api/v2/organizations/:id`,
            api: run.seed.api,
            path: `/api/v2/organizations/${run.seed.organizationId}`,
            concurrency: CLIENTS,
            durationMs: PHASE_MS,
          },
          run.ctx,
        ),
      );
    }
    for (const run of runs) {
      log(`round ${round}/${ROUNDS}, tracing ${run.mode}: resolve + hold + confirm, ${CLIENTS} clients`);
      run.confirm.push(
        await benchConfirm(
          {
            id: `tracing.${run.mode}.confirm.c${CLIENTS}`,
            label: `tracing ${run.mode}: resolve + hold + confirm (p: confirm)`,
            api: run.seed.api,
            serviceIds: run.seed.serviceIds,
            from,
            durationMs: PHASE_MS,
          },
          run.ctx,
        ),
      );
    }
  }
  const { exports, bytes } = collector.counts();
  log(`the collector got ${exports} OTLP exports, ${(bytes / 1e6).toFixed(1)} MB`);
  const rows: BenchRow[] = [];
  for (const run of runs) rows.push(medianRow(run.get, 'req'), medianRow(run.confirm, 'round trips'));
  console.log('');
  console.log(renderReport(rows));
  const off = runs.find((r) => r.mode === 'off');
  if (off) {
    console.log('');
    for (const run of runs) {
      if (run === off) continue;
      for (const [what, a, b] of [
        ['GET', off.get, run.get],
        ['confirm', off.confirm, run.confirm],
      ] as const) {
        const ratio = (f: (m: ScenarioMeasurement) => number) => (median(b.map(f)) / median(a.map(f))).toFixed(2);
        console.log(
          `${run.mode} vs off, ${what}: rate x${ratio((m) => m.perSecond)}, p50 x${ratio((m) => m.latency.p50)}, p99 x${ratio((m) => m.latency.p99)}, service CPU ms/req x${ratio((m) => m.cpuMsPerRequest.service)}`,
        );
      }
    }
  }
  for (const run of runs) await run.target.close();
} finally {
  for (const s of services) await s.process.stop().catch(() => undefined);
  await collector.stop();
  await stores.stop();
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One row of a scenario measured in several rounds: the median of each figure, the answers of all rounds. */
function medianRow(ms: ScenarioMeasurement[], unit: string): BenchRow {
  const first = ms[0]!;
  const rate = median(ms.map((m) => m.perSecond));
  const statuses = ms.map((m) => m.statuses).reduce(mergeStatusCounts);
  return {
    id: first.id,
    group: 'tracing',
    label: `${first.label}, ${CLIENTS} clients, median of ${ms.length}`,
    rate,
    unit,
    p50: median(ms.map((m) => m.latency.p50)),
    p99: median(ms.map((m) => m.latency.p99)),
    ...shareOfRaw(raw, rate, CLIENTS),
    cpu: {
      service: median(ms.map((m) => m.cpuMsPerRequest.service)),
      postgres: median(ms.map((m) => m.cpuMsPerRequest.postgres)),
      redis: median(ms.map((m) => m.cpuMsPerRequest.redis)),
      generator: median(ms.map((m) => m.cpuMsPerRequest.generator)),
    },
    rssMb: Math.max(...ms.flatMap((m) => m.resources.serviceRssPeakMb)),
    serverErrors: serverErrorCount(statuses),
    answers: `${formatStatusCounts(statuses)}${ms.some((m) => m.failures) ? `; ${ms.reduce((n, m) => n + m.failures, 0)} failed` : ''}${ms.some((m) => m.notes.failures && m.notes.failures !== '{}') ? ` ${ms.map((m) => m.notes.failures ?? '').join(' ')}` : ''}`,
  };
}
