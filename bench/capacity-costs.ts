import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createClient } from 'redis';
import { createBenchClient, createHttpTarget, type BenchClient, type BenchResponse } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { forEachBounded } from './closed-loop.js';
import { keptSeed, readKeptSeed } from './kept-seed.js';
import { latencyStats } from './latency-stats.js';
import { processCpuMs } from './process-cpu.js';
import { startRawServer } from './raw-baseline.js';
import { CLINIC_MIX, CONSTRAINT_MIXES, resolutionBody } from './resolution-requests.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { backlogOf, COUNTER_FIELDS, createStoreCounters, type CounterField } from './store-counters.js';
import { startWorkersProcess, type WorkersProcess } from './workers-process.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import type { Redis } from '../src/persistence/redis-client.js';

/**
 * What each operation costs every part of a deployment (`npm run bench:capacity`), the input of docs/capacity.md.
 * One API process (the `npm start` command with SERVICE_ROLES=gateway,grpc: no background workers, so nothing but the
 * requests moves the counters) on kept stores in BENCH_DIR (default /tmp/scheduling-bench-capacity, seeded once like
 * `npm run bench:quick`: 10,000 providers through the API), on the platform path (platform key +
 * Service-Organization-Id). Each kind of operation runs CAPACITY_OPS times (default 300) from CAPACITY_CLIENTS clients
 * (default 4), after CAPACITY_WARM untimed ones (default 30), between two readings of the counters of
 * store-counters.ts (CPU of the service, PostgreSQL and Redis; statements, commits, WAL; Redis commands, AOF and
 * memory; the work left to the workers), less what the idle API process does meanwhile (CAPACITY_IDLE_SECONDS,
 * default 5). A second pass of CAPACITY_MONITOR_OPS per kind (default 20) under Redis MONITOR counts the commands the
 * service sends itself (not those its scripts run). At the end a workers-only process drains the backlog the run left:
 * its CPU, PostgreSQL and Redis use from spawn until the queues are empty (start-up included), per item and per op.
 * Operations: the broad clinic resolution (English, BCBS, licence in CA or NY: ~10% eligible, thousands unknown on
 * licence region), the ~10% mix, a hold of an option, a confirm of each hold, GET organization, GET booking, GET
 * resolution; and a raw node:http hello-world at the same clients for the CPU ratio. Raw figures go to
 * bench-results/capacity-<time>.json.
 */
const DIR = process.env.BENCH_DIR ?? '/tmp/scheduling-bench-capacity';
const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 10_000);
const OPS = Number(process.env.CAPACITY_OPS ?? 300);
const WARM = Number(process.env.CAPACITY_WARM ?? 30);
const CLIENTS = Number(process.env.CAPACITY_CLIENTS ?? 4);
const IDLE_MS = Number(process.env.CAPACITY_IDLE_SECONDS ?? 5) * 1000;
const MONITOR_OPS = Number(process.env.CAPACITY_MONITOR_OPS ?? 20);
/** PostgreSQL backends report their counters to pg_stat_database at most once a second when idle. */
const SETTLE_MS = 1500;
const CUSTOMER = { name: 'Capacity Plan', email: 'capacity@example.org', timezone: 'America/Chicago' };
const log = (line: string) => console.log(`[capacity ${new Date().toISOString().slice(11, 19)}] ${line}`);

readKeptSeed(DIR);
const tally = createResponseTally();
const stores = await startBenchStores({
  keepDir: DIR,
  postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=top'],
});
let service: BenchService | undefined;
stopOnSignal(async () => {
  await workers?.stop();
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
});
let workers: WorkersProcess | undefined;
const stats = new pg.Client({ connectionString: stores.databaseUrl });
const redis = createClient({ url: stores.redisUrl });
try {
  const seed = await keptSeed({ dir: DIR, stores, providerCount: PROVIDERS, tally, log });
  await stats.connect();
  await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await redis.connect();
  service = await startBenchService(stores, seed.platformKey, 'capacity', { SERVICE_ROLES: 'gateway,grpc' });
  const svc = service;
  log(`service ready in ${svc.startMs.toFixed(0)} ms (pid ${svc.pid}); ${seed.providerCount} providers`);
  const target = createHttpTarget(svc.url);
  const api = createBenchClient(target, {
    key: seed.platformKey,
    headers: { 'service-organization-id': seed.organizationId },
    tally,
  });

  const { read, diff } = createStoreCounters({
    stats,
    redis: redis as unknown as Redis,
    servicePid: svc.pid,
    postgresPid: stores.postgresPid,
    redisPid: stores.redisPid,
  });
  const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

  const stopWorkers = async () => {
    await workers?.stop();
    workers = undefined;
  };
  /** CPU of the workers-only process so far (0 before it starts). */
  const workersCpu = () => workers?.cpuMs() ?? 0;
  /**
   * Starts a workers-only process and waits until the audit and review streams, the outbox and the e-mails are
   * empty (at most `timeoutMs`): answers the deltas from spawn to then, the workers' own CPU and the items drained.
   */
  const drain = async (timeoutMs: number) => {
    const before = await read();
    const t0 = performance.now();
    workers = await startWorkersProcess({ stores, platformKey: seed.platformKey, name: 'capacity-workers' });
    const startedMs = performance.now() - t0;
    let last = before;
    while (performance.now() - t0 < timeoutMs) {
      await new Promise((r) => setTimeout(r, 250));
      last = await read();
      if (backlogOf(last) === 0) break;
    }
    return {
      delta: diff(before, last),
      workersCpu: workersCpu(),
      items: backlogOf(before) - backlogOf(last),
      startedMs,
    };
  };

  if (backlogOf(await read()) > 0) {
    log('backlog left by an earlier run: draining it first');
    await drain(120_000);
    await stopWorkers();
  }
  log(`idle API process, ${IDLE_MS / 1000} s: what it does with no request`);
  await settle();
  const idle0 = await read();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = diff(idle0, await read());
  /** Per millisecond of idle time. */
  const idleRate = (f: CounterField) => idle[f] / idle.ms;

  interface Row {
    name: string;
    ops: number;
    statuses: Record<string, number>;
    p50: number;
    p99: number;
    perOp: Record<CounterField, number>;
    /** Commands the service sent itself per op (MONITOR pass), and those its scripts ran. */
    redisSent?: number;
    redisInScripts?: number;
  }
  const rows: Row[] = [];

  /**
   * Runs `run` over `items` from CLIENTS clients: the first WARM untimed, the rest between two readings; answers
   * the results of every call, in order.
   */
  const measure = async <T, R>(
    name: string,
    items: readonly T[],
    run: (item: T) => Promise<{ res: BenchResponse; out?: R }>,
  ): Promise<(R | undefined)[]> => {
    const out: (R | undefined)[] = new Array(items.length);
    const warm = Math.min(WARM, Math.floor(items.length / 4));
    await forEachBounded(items.slice(0, warm), CLIENTS, async (item, i) => {
      out[i] = (await run(item)).out;
    });
    await settle();
    const before = await read();
    const statuses: Record<string, number> = {};
    const latencies: number[] = [];
    const timed = items.slice(warm);
    await forEachBounded(timed, CLIENTS, async (item, i) => {
      const { res, out: o } = await run(item);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      latencies.push(res.ms);
      out[warm + i] = o;
    });
    await settle();
    const d = diff(before, await read());
    const perOp = {} as Row['perOp'];
    for (const f of COUNTER_FIELDS) perOp[f] = (d[f] - idleRate(f) * d.ms) / timed.length;
    const l = latencyStats(latencies);
    rows.push({ name, ops: timed.length, statuses, p50: l.p50, p99: l.p99, perOp });
    log(`${name}: ${timed.length} ops ${JSON.stringify(statuses)}, ${perOp.serviceCpu.toFixed(2)} ms service CPU/op`);
    return out;
  };

  /** Runs `run` over `items` under Redis MONITOR and records the commands sent per op on the row `name`. */
  const monitor = async <T>(name: string, items: readonly T[], run: (item: T) => Promise<unknown>) => {
    const mon = redis.duplicate();
    await mon.connect();
    let sent = 0;
    let inScripts = 0;
    await mon.monitor((line: string) => {
      if (/^\d+\.\d+ \[\d+ lua\]/.test(line)) inScripts++;
      else sent++;
    });
    await forEachBounded(items, CLIENTS, async (item) => {
      await run(item);
    });
    // Idle-time commands during the pass are few; a short wait lets the last lines arrive.
    await new Promise((r) => setTimeout(r, 300));
    mon.destroy();
    const row = rows.find((r) => r.name === name);
    if (row && items.length > 0) {
      row.redisSent = sent / items.length;
      row.redisInScripts = inScripts / items.length;
    }
  };

  const rnd = createSeededRandom(Number(process.env.CAPACITY_SEED ?? Date.now() % 1_000_000));
  const firstDate = firstBenchDate(Date.now());
  const clinicBody = () => resolutionBody(CLINIC_MIX, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 });
  const mix10Body = () =>
    resolutionBody(CONSTRAINT_MIXES.mix10, rnd, { serviceIds: seed.serviceIds, from: firstDate, days: 14 });
  const resolve = async (body: Record<string, unknown>) => {
    const res = await api.post('/api/v2/resolutions', body, { 'idempotency-key': randomUUID() });
    return { res, out: res.status === 200 ? (res.body as { resolutionId: string; options: any[] }) : undefined };
  };

  // The first resolution loads the organization's graph: not part of any row.
  log('first resolution (loads the graph)...');
  await resolve(clinicBody());

  const total = WARM + OPS;
  const clinic = await measure(
    'resolution: clinic (~10% eligible, thousands unknown)',
    Array.from({ length: total }, clinicBody),
    resolve,
  );
  const mix10 = await measure(
    'resolution: ~10% mix (1 language, 1 insurer, 2 regions)',
    Array.from({ length: total }, mix10Body),
    resolve,
  );
  /** Median over answered resolutions of a figure of each (undefined when none answered). */
  const median = (list: (any | undefined)[], of: (r: any) => number) => {
    const got = list.filter(Boolean).map(of);
    return got.length > 0 ? latencyStats(got).p50 : undefined;
  };
  const eligible = (list: (any | undefined)[]) => median(list, (r) => r.summary.eligibleProviders);

  // One option per resolution, its slot at least two hours from any other picked one (no hold meets a taken slot);
  // more ~10% resolutions (untimed) until there are enough for the holds and the MONITOR pass.
  const GAP = 2 * 3600 * 1000;
  const taken = new Map<string, [number, number][]>();
  const used = new Set(seed.usedProviderIds);
  const picks: { resolutionId: string; optionId: string }[] = [];
  const pick = (r: { resolutionId: string; options: any[] } | undefined) => {
    const option = (r?.options ?? []).find((x: any) => {
      const [s, e] = [Date.parse(x.slot.start), Date.parse(x.slot.end)];
      return !used.has(x.provider.id) && !(taken.get(x.provider.id) ?? []).some(([a, b]) => s < b + GAP && e > a - GAP);
    });
    if (!option) return;
    const list = taken.get(option.provider.id) ?? [];
    list.push([Date.parse(option.slot.start), Date.parse(option.slot.end)]);
    taken.set(option.provider.id, list);
    picks.push({ resolutionId: r!.resolutionId, optionId: option.optionId });
  };
  [...clinic, ...mix10].forEach(pick);
  for (let round = 0; round < 5 && picks.length < total + MONITOR_OPS; round++)
    await forEachBounded(Array.from({ length: total + MONITOR_OPS - picks.length }, mix10Body), CLIENTS, async (body) =>
      pick((await resolve(body)).out),
    );
  const forHolds = picks.slice(0, total);
  const forMonitor = picks.slice(total, total + MONITOR_OPS);
  log(
    `${picks.length} resolutions with a free option: ${forHolds.length} for the holds, ${forMonitor.length} for MONITOR`,
  );
  const hold = async (p: { resolutionId: string; optionId: string }) => {
    const res = await api.post(`/api/v2/resolutions/${p.resolutionId}/options/${p.optionId}/hold`, {
      ttlSeconds: 600,
    });
    return { res, out: res.status === 200 ? { ...p, holdId: res.body.holdId as string } : undefined };
  };
  const confirm = async (h: { resolutionId: string; optionId: string; holdId: string } | undefined) => {
    if (!h) return { res: { status: 0, body: undefined, ms: 0 } as BenchResponse };
    const res = await api.post(
      `/api/v2/resolutions/${h.resolutionId}/confirm`,
      { optionId: h.optionId, holdId: h.holdId, customer: CUSTOMER },
      { 'idempotency-key': randomUUID() },
    );
    return { res, out: res.status === 200 ? (res.body.id as string) : undefined };
  };
  const holds = await measure('hold (an option of a resolution)', forHolds, hold);
  const bookings = (await measure('confirm (with the hold)', holds, confirm)).filter((b): b is string => Boolean(b));

  const many = <T>(list: readonly T[]) => Array.from({ length: total }, (_, i) => list[i % list.length]!);
  const resolutionIds = clinic.filter(Boolean).map((r) => r!.resolutionId);
  const readOrg = async () => ({ res: await api.get(`/api/v2/organizations/${seed.organizationId}`) });
  const readBooking = async (id: string) => ({ res: await api.get(`/api/v2/bookings/${id}`) });
  const readResolution = async (id: string) => ({ res: await api.get(`/api/v2/resolutions/${id}`) });
  await measure('GET organization', many([0]), readOrg);
  await measure('GET booking', many(bookings), readBooking);
  await measure('GET resolution', many(resolutionIds), readResolution);

  // MONITOR pass: the commands the service sends to Redis per op, and those its scripts run.
  log(`MONITOR pass, ${MONITOR_OPS} ops per kind...`);
  await monitor(
    'resolution: clinic (~10% eligible, thousands unknown)',
    Array.from({ length: MONITOR_OPS }, clinicBody),
    resolve,
  );
  await monitor(
    'resolution: ~10% mix (1 language, 1 insurer, 2 regions)',
    Array.from({ length: MONITOR_OPS }, mix10Body),
    resolve,
  );
  const monitorHolds: ({ resolutionId: string; optionId: string; holdId: string } | undefined)[] = [];
  await monitor('hold (an option of a resolution)', forMonitor, async (p) => monitorHolds.push((await hold(p)).out));
  await monitor('confirm (with the hold)', monitorHolds, confirm);
  await monitor('GET organization', many([0]).slice(0, MONITOR_OPS), readOrg);
  await monitor('GET booking', many(bookings).slice(0, MONITOR_OPS), readBooking);
  await monitor('GET resolution', many(resolutionIds).slice(0, MONITOR_OPS), readResolution);

  // Providers unknown on a constraint (licence region) in a few clinic resolutions: their candidates page's summary.
  const unknowns: number[] = [];
  for (const id of resolutionIds.slice(0, 5)) {
    const page = await api.get(`/api/v2/resolutions/${id}/candidates?limit=1`);
    if (page.status === 200) unknowns.push(Number(page.body.summary.unknown));
  }

  // What the workers pay for the work the operations left them: a workers-only process drains the backlog.
  const opsTotal = rows.reduce((n, r) => n + r.ops, 0) + rows.length * WARM + 7 * MONITOR_OPS;
  await settle();
  log('workers-only process: draining the backlog the operations left...');
  const drained = await drain(180_000);
  log(
    `drained ${drained.items} items in ${(drained.delta.ms / 1000).toFixed(1)} s (started in ${drained.startedMs.toFixed(0)} ms)`,
  );
  await settle();
  const wIdle0 = await read();
  const wCpu0 = workersCpu();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const workersIdle = { delta: diff(wIdle0, await read()), cpu: workersCpu() - wCpu0 };
  await stopWorkers();

  // The raw node:http hello-world at the same clients, its CPU per request.
  const raw = await startRawServer();
  const rawTarget = createHttpTarget(raw.url);
  const rawApi: BenchClient = createBenchClient(rawTarget, { tally });
  let rawCpuPerReq = Number.NaN;
  try {
    const n = Math.max(OPS * 10, 3000);
    await forEachBounded(Array.from({ length: 500 }), CLIENTS, async () => void (await rawApi.get('/')));
    const c0 = processCpuMs(raw.pid);
    await forEachBounded(Array.from({ length: n }), CLIENTS, async () => void (await rawApi.get('/')));
    rawCpuPerReq = (processCpuMs(raw.pid) - c0) / n;
  } finally {
    await rawTarget.close();
    await raw.stop();
  }

  const f = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
  const kb = (n: number) => (n / 1024).toFixed(1);
  const load = loadavg();
  console.log('');
  console.log(
    `${new Date().toISOString()}  ${cpus().length} x ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}; load average ${load.map((x) => x.toFixed(2)).join(' ')}`,
  );
  console.log(
    `${seed.providerCount} providers; ${OPS} timed ops per kind after ${WARM} untimed, ${CLIENTS} clients, platform path; per op, less the idle service's own work`,
  );
  console.log(
    `median eligible providers: clinic ${f(eligible(clinic), 0)} (unknown ${unknowns.length ? f(latencyStats(unknowns).p50, 0) : '-'}), ~10% mix ${f(eligible(mix10), 0)}; raw node:http: ${f(rawCpuPerReq, 3)} ms CPU per request`,
  );
  console.log('');
  console.log(
    '| operation | answers | p50 / p99 ms | service CPU ms (x raw) | PG CPU ms | Redis CPU ms | PG statements (round trips) | PG commits | PG rows written | WAL KB | Redis commands run | Redis commands sent (MONITOR) | Redis scripts | Redis in KB | AOF KB | Redis memory KB | left to workers: audit / review / outbox events / e-mails / timers |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const p = r.perOp;
    console.log(
      `| ${r.name} | ${Object.entries(r.statuses)
        .map(([s, n]) => `${n} x ${s}`)
        .join(
          ', ',
        )} | ${f(r.p50, 1)} / ${f(r.p99, 1)} | ${f(p.serviceCpu)} (${f(p.serviceCpu / rawCpuPerReq, 0)}x) | ${f(p.postgresCpu)} | ${f(p.redisCpu)} | ${f(p.statements, 1)} | ${f(p.commits, 1)} | ${f(p.rowsWritten, 1)} | ${kb(p.walBytes)} | ${f(p.redisCommands, 1)} | ${f(r.redisSent, 1)} | ${f(p.redisScripts, 1)} | ${kb(p.redisInBytes)} | ${kb(p.redisAofBytes)} | ${kb(p.redisMemory)} | ${[p.auditPending, p.reviewPending, p.outboxEvents, p.emails, p.timers].map((x) => f(x, 1)).join(' / ')} |`,
    );
  }
  const perSec = (field: CounterField) => idleRate(field) * 1000;
  console.log('');
  console.log(
    `idle API process, per second: ${f(perSec('serviceCpu'))} ms service CPU, ${f(perSec('postgresCpu'))} ms PG CPU, ${f(perSec('redisCpu'))} ms Redis CPU, ${f(perSec('statements'), 1)} PG statements, ${f(perSec('commits'), 1)} commits, ${kb(perSec('walBytes'))} KB WAL, ${f(perSec('redisCommands'), 1)} Redis commands`,
  );
  const d = drained.delta;
  const per = (x: number) => (drained.items > 0 ? x / drained.items : Number.NaN);
  console.log(
    `workers-only drain (spawn to empty queues, start-up included): ${drained.items} items in ${(d.ms / 1000).toFixed(1)} s; per item ${f(per(drained.workersCpu))} ms workers CPU, ${f(per(d.postgresCpu))} ms PG CPU, ${f(per(d.redisCpu))} ms Redis CPU, ${f(per(d.statements), 1)} PG statements, ${f(per(d.commits), 1)} commits, ${kb(per(d.walBytes))} KB WAL, ${f(per(d.redisCommands), 1)} Redis commands; over the run's ${opsTotal} operations: ${f(drained.workersCpu / opsTotal)} ms workers CPU, ${f(d.postgresCpu / opsTotal)} ms PG CPU, ${f(d.statements / opsTotal, 1)} PG statements, ${kb(d.walBytes / opsTotal)} KB WAL per op`,
  );
  const wi = workersIdle.delta;
  const ps = (x: number) => (x / wi.ms) * 1000;
  console.log(
    `idle workers-only process, per second (its polling, the fixed cost of each process running workers): ${f(ps(workersIdle.cpu))} ms workers CPU, ${f(ps(wi.postgresCpu))} ms PG CPU, ${f(ps(wi.redisCpu))} ms Redis CPU, ${f(ps(wi.statements), 1)} PG statements, ${f(ps(wi.commits), 1)} commits, ${f(ps(wi.redisCommands), 1)} Redis commands`,
  );
  mkdirSync('bench-results', { recursive: true });
  const file = `bench-results/capacity-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        loadavg: load,
        providers: seed.providerCount,
        ops: OPS,
        clients: CLIENTS,
        rawCpuPerReq,
        idlePerSecond: Object.fromEntries(COUNTER_FIELDS.map((x) => [x, perSec(x)])),
        drain: { ...drained, opsTotal },
        workersIdle,
        rows,
      },
      null,
      2,
    ),
  );
  console.log(`raw figures: ${file}`);
  await target.close();
} finally {
  await workers?.stop().catch(() => undefined);
  await stats.end().catch(() => undefined);
  if (redis.isOpen) redis.destroy();
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
