import { performance } from 'node:perf_hooks';
import { seedOrganizationThroughApi, type ApiSeedResult } from './api-seed-bench.js';
import {
  batchRow,
  measurementRow,
  oneShotRow,
  p99OfRaw,
  renderReport,
  shareOfRaw,
  type BenchRow,
} from './bench-report.js';
import { createBenchClient, createHttpTarget, type HttpTarget } from './bench-client.js';
import { firstBenchDate } from './bench-dates.js';
import { newPlatformKey, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores, type BenchStores } from './bench-stores.js';
import { checkTargets, targetLine } from './bench-targets.js';
import { benchBookingLoop } from './booking-loop-bench.js';
import { benchBurst } from './burst-bench.js';
import { benchContention } from './contention-bench.js';
import { benchGet } from './get-load.js';
import { benchGrpcGetOrganization } from './grpc-get-organization.js';
import { createGrpcResolutionClient, type GrpcResolutionClient } from './grpc-resolution-client.js';
import { seedLargeOrganization } from './large-organization.js';
import { formatLoad, machineInfo } from './machine-info.js';
import type { MeasureContext, ScenarioMeasurement } from './measure-scenario.js';
import { benchOverload, overloadRows } from './overload-bench.js';
import { ADEQUACY_DIMENSIONS, benchNetworkAdequacy } from './network-adequacy-bench.js';
import { measureRawBaseline } from './raw-baseline.js';
import { ms, perSec, sec } from './report-table.js';
import { benchResolutions, grpcResolutionCaller, httpResolutionCaller, timeOneResolution } from './resolution-load.js';
import { benchResolutionReads } from './resolution-read-load.js';
import { CLINIC_MIX, CONSTRAINT_MIXES, resolutionBody, type ConstraintMix } from './resolution-requests.js';
import { createResponseTally, formatStatusCounts, mergeStatusCounts, type StatusCounts } from './response-tally.js';
import { writeResultsFile } from './results-file.js';
import { stopOnSignal } from './stop-on-signal.js';
import { benchStreamFlood } from './stream-flood-bench.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { seedOrganization } from './seed-organization.js';
import { runClosedLoop } from './closed-loop.js';
import { benchV1Create } from './v1-create-bench.js';
import { benchWebhooks } from './webhook-bench.js';
import { benchWaitlistOffer } from './waitlist-offer-bench.js';

/**
 * Bench entry point (`npm run bench`): a raw node:http baseline, then the service as its own process (the
 * `npm start` command, production settings: admission queues and refuses as deployed) on private stores, loaded by
 * this process over keep-alive HTTP (undici) and gRPC, on the platform path (platform key + Service-Organization-Id)
 * unless a row says otherwise; one table, every throughput as a share of the raw baseline of the same run, the
 * targets of issues 22, 21 and 11 met or missed, and the raw figures in bench-results/<time>.json (`npm run
 * bench:summary -- <files>` prints their spread). Knobs (defaults are the full bench; smaller ones for smoke runs):
 *   BENCH_PROVIDERS=10000          providers of the main organization (imports of 500)
 *   BENCH_API_SEED_PROVIDERS=1000  providers seeded call by call by 32 clients obeying Retry-After into a second
 *                                  organization, which then serves the 1,000-provider row (10000: the issue's size)
 *   BENCH_SECONDS=10               each measured phase (each after its own 1 s warm-up)
 *   BENCH_RAW_SECONDS=5            each raw baseline phase
 *   BENCH_WARMUP_SECONDS=10        the unmeasured warm-up after the restart on the seeded stores
 *   BENCH_QUIET_SECONDS=3          quiet before each burst, before the overload phases and before the reads after them
 *   BENCH_STREAM_ATTEMPTS=1000     stream attempts of the issue-21 row (one per 60 ms, in 10 s windows: ~2 minutes)
 *   BENCH_WEBHOOK_EVENTS=5000      outbox events of the webhook throughput row
 *   BENCH_WAITLIST_ROUNDS=50       cancels that each trigger a waitlist offer (cancel -> waitlist.offered delivered)
 *   BENCH_ADEQUACY_RESOLUTIONS=100000  resolutions seeded by SQL into the main organization for the network-adequacy
 *                                  rows (one per dimension, 1 client, half a phase each)
 *   BENCH_LARGE=0                  skips the large organization (BENCH_LARGE_PROVIDERS=100000, of which
 *                                  BENCH_LARGE_API_PROVIDERS=20000 through the API's imports, the rest by SQL)
 */
const PROVIDERS = Number(process.env.BENCH_PROVIDERS ?? 10_000);
const API_SEED_PROVIDERS = Number(process.env.BENCH_API_SEED_PROVIDERS ?? 1000);
const LARGE_PROVIDERS = Number(process.env.BENCH_LARGE_PROVIDERS ?? 100_000);
const LARGE = process.env.BENCH_LARGE !== '0';
const LARGE_API_PROVIDERS = Number(process.env.BENCH_LARGE_API_PROVIDERS ?? 20_000);
const PHASE_MS = Number(process.env.BENCH_SECONDS ?? 10) * 1000;
const RAW_MS = Number(process.env.BENCH_RAW_SECONDS ?? 5) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10) * 1000;
const QUIET_MS = Number(process.env.BENCH_QUIET_SECONDS ?? 3) * 1000;
const STREAM_ATTEMPTS = Number(process.env.BENCH_STREAM_ATTEMPTS ?? 1000);
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
const ADEQUACY_RESOLUTIONS = Number(process.env.BENCH_ADEQUACY_RESOLUTIONS ?? 100_000);
const WAITLIST_ROUNDS = Number(process.env.BENCH_WAITLIST_ROUNDS ?? 50);
/** The issue's seeding clients and the retries each makes after a 503. */
const API_SEED_CLIENTS = 32;
const API_SEED_RETRIES = 6;
/** The ordinary load of resolutions (the overload scenario's 1x) and of reads. */
const ORDINARY_CLIENTS = 8;
const READ_CLIENTS = 32;
const BURSTS = [20, 100];
const benchStart = performance.now();
const log = (line: string) =>
  console.log(
    `[bench ${new Date().toISOString().slice(11, 19)} +${((performance.now() - benchStart) / 1000).toFixed(0)}s] ${line}`,
  );
const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

let stores: BenchStores | undefined;
let service: BenchService | undefined;
let target: HttpTarget | undefined;
let grpc: GrpcResolutionClient | undefined;
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  grpc?.close();
  await target?.close().catch(() => undefined);
  await service?.process.stop().catch((err) => console.error(`bench: stopping the service failed: ${String(err)}`));
  await stores?.stop();
}
stopOnSignal(shutdown);

/** Stops the running service (if any) and starts a new one on the same stores, with fresh connections to it. */
async function restartService(platformKey: string): Promise<BenchService> {
  grpc?.close();
  grpc = undefined;
  await target?.close();
  await service?.process.stop();
  service = await startBenchService(stores!, platformKey, 'service');
  target = createHttpTarget(service.url);
  return service;
}

/** How an import's jobs' cost grew: the mean time of its first and last five jobs, with the organization's size. */
function importJobs(jobMs: readonly number[], rowsPerCall: number): string {
  const k = Math.min(5, jobMs.length);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return `job of ${rowsPerCall}: ${ms(mean(jobMs.slice(0, k)))} at first, ${ms(mean(jobMs.slice(-k)))} at ${(jobMs.length - k) * rowsPerCall}+ providers`;
}

/** The row of the call-by-call seeding: writes per second, their latency (waits included) and what was lost. */
function apiSeedRow(raw: Parameters<typeof shareOfRaw>[0], s: ApiSeedResult): BenchRow {
  const m = s.measurement;
  return {
    id: m.id,
    group: 'no 503',
    label: m.label,
    rate: s.writesPerSecond,
    unit: 'writes',
    timeMs: m.elapsedMs,
    p50: s.writeLatency.p50,
    p99: s.writeLatency.p99,
    ...shareOfRaw(raw, s.writesPerSecond, s.clients),
    cpu: m.cpuMsPerRequest,
    rssMb: Math.max(...m.resources.serviceRssPeakMb),
    serverErrors: Object.values(m.statuses.serverErrors).reduce((a, b) => a + b, 0),
    answers: `lost ${s.lostWrites} of ${s.writes} writes ${JSON.stringify(s.lostByKind)}, ${s.skippedWrites} not sent; ${s.refusals} x 503 waited out, ${s.retriedWrites} writes retried; ${s.providersReadBack}/${s.providerCount} providers read back; ${formatStatusCounts(m.statuses)}; service refused ${JSON.stringify(m.refusedByService ?? {})}`,
  };
}

async function main() {
  const startedAt = new Date();
  const machine = machineInfo();
  console.log(
    `machine: ${machine.cpuCount} x ${machine.cpuModel}; ${machine.totalMemoryGb.toFixed(1)} GB RAM (${machine.freeMemoryGb.toFixed(1)} GB free); node ${machine.node}; load average ${formatLoad(machine.loadAverage)} (1/5/15 min)`,
  );
  console.log(
    `providers: ${PROVIDERS} (+ ${API_SEED_PROVIDERS} seeded call by call${LARGE ? ` + one organization of ${LARGE_PROVIDERS}` : ''}); ${PHASE_MS / 1000} s per measured phase; the service runs as its own process (npm start, production admission); the load generator (undici keep-alive, closed loop; grpc-js for gRPC) in this one`,
  );
  const tally = createResponseTally();
  /** Every phase's answers by name; the 4x overload phases, which refuse by design, are kept apart. */
  const phases: Record<string, StatusCounts> = {};
  const overloadPhases: Record<string, StatusCounts> = {};
  const note = (name: string, c: StatusCounts, into = phases) => {
    into[name] = into[name] ? mergeStatusCounts(into[name]!, c) : c;
  };
  const rows: BenchRow[] = [];
  const scenarios: ScenarioMeasurement[] = [];

  const raw = await measureRawBaseline({ clients: [1, 8, 32], durationMs: RAW_MS, tally, log });
  for (const m of raw.byClients.values()) rows.push(measurementRow(raw, 'raw baseline', m));

  log('starting private Redis and embedded PostgreSQL');
  stores = await startBenchStores();
  stopOnSignal(shutdown);
  const platformKey = newPlatformKey();
  service = await startBenchService(stores, platformKey);
  target = createHttpTarget(service.url);
  const emptyStart = service;
  log(`service started on empty stores in ${ms(emptyStart.startMs)}`);

  const nowMs = Date.now();
  const firstDate = firstBenchDate(nowMs);
  const rnd = createSeededRandom(20_260_301);
  const seed = await seedOrganization({
    target,
    tally,
    platformKey,
    providerCount: PROVIDERS,
    rowsPerImport: 500,
    concurrency: 16,
    existingBookings: 200,
    firstDate,
    nowMs,
    rnd,
    log,
  });
  note('seeding', tally.take());
  const providerCount = seed.providers.length + 1;
  const serviceIds = seed.providers.map((p) => p.serviceId);

  log('restarting the service on the seeded stores');
  const seeded = await restartService(platformKey);
  const orgHeader = { 'service-organization-id': seed.organizationId };
  const platform = createBenchClient(target!, { key: platformKey, headers: orgHeader, tally });
  const orgKey = createBenchClient(target!, { key: seed.orgKey, tally });
  grpc = createGrpcResolutionClient({
    target: seeded.grpcTarget,
    key: platformKey,
    organizationId: seed.organizationId,
    tally,
  });
  const ctx: MeasureContext = {
    tally,
    processes: { service: [seeded.pid], postgres: stores.postgresPid, redis: stores.redisPid },
    serviceUrl: seeded.url,
  };
  const viaPlatform = httpResolutionCaller(platform);
  const bodyOf = (mix: ConstraintMix, ids: readonly string[] = serviceIds) =>
    resolutionBody(mix, rnd, { serviceIds: ids, from: firstDate, days: 14 });
  const cold = await timeOneResolution(viaPlatform, bodyOf(CONSTRAINT_MIXES.mix10), 'first resolution after restart');
  note('first resolution', tally.take());
  // A freshly started process compiles its hot code and grows its heap during the first seconds of load; a service in
  // production is past that. Unmeasured seconds of every mix at 8 clients, so the first row is not the one to pay.
  log(`warming the service up: every mix, 8 clients, ${WARMUP_MS / 1000} s (not measured)`);
  const mixes = [...Object.values(CONSTRAINT_MIXES), CLINIC_MIX];
  await runClosedLoop({
    concurrency: 8,
    durationMs: WARMUP_MS,
    task: async (c) => {
      const r = await viaPlatform(bodyOf(mixes[c % mixes.length]!));
      return r.status === 200 ? r.ms : 'fail';
    },
  });
  note('warm-up', tally.take());

  const run = async (m: Promise<ScenarioMeasurement>) => {
    const r = await m;
    note(r.id, mergeStatusCounts(r.prepStatuses, r.statuses));
    scenarios.push(r);
    log(
      `  ${r.perSecond.toFixed(1)}/s, p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}${r.notes.meanEligibleProviders !== undefined ? `, eligible ${Number(r.notes.meanEligibleProviders).toFixed(0)}` : ''}; ${formatStatusCounts(r.statuses)}`,
    );
    return r;
  };

  // Bursts on an idle service: each after a few quiet seconds.
  const bursts: ScenarioMeasurement[] = [];
  for (const count of BURSTS) {
    log(`burst: ${count} resolutions at once (~10%) after ${QUIET_MS / 1000} s of quiet`);
    bursts.push(
      await run(
        benchBurst(
          {
            id: `burst.platform.mix10.c${count}`,
            label: `burst of ${count} POST resolutions at once on an idle service, ~10%`,
            api: platform,
            body: () => bodyOf(CONSTRAINT_MIXES.mix10),
            count,
            quietMs: QUIET_MS,
          },
          ctx,
        ),
      ),
    );
  }

  const common = { rnd, serviceIds, firstDate, providerCount, durationMs: PHASE_MS };
  const resolutionsRow = async (
    id: string,
    label: string,
    path: 'platform' | 'org' | 'grpc',
    mix: ConstraintMix,
    concurrency: number,
  ) => {
    log(`${label} (${PHASE_MS / 1000} s)`);
    const call =
      path === 'platform' ? viaPlatform : path === 'org' ? httpResolutionCaller(orgKey) : grpcResolutionCaller(grpc!);
    return run(benchResolutions({ id, label, call, mix, concurrency, ...common }, ctx));
  };
  const res10 = await resolutionsRow(
    'resolution.platform.mix10.c8',
    'POST resolutions, platform+header, ~10%, 8 clients',
    'platform',
    CONSTRAINT_MIXES.mix10,
    ORDINARY_CLIENTS,
  );
  const clinic = await resolutionsRow(
    'resolution.platform.clinic.c8',
    'POST resolutions, platform+header, broad clinic question (en, bcbs, licence US-CA or US-NY), 8 clients',
    'platform',
    CLINIC_MIX,
    ORDINARY_CLIENTS,
  );
  const res3 = await resolutionsRow(
    'resolution.platform.mix3.c8',
    'POST resolutions, platform+header, ~3%, 8 clients',
    'platform',
    CONSTRAINT_MIXES.mix3,
    8,
  );
  const res1 = await resolutionsRow(
    'resolution.platform.mix1.c8',
    'POST resolutions, platform+header, ~1%, 8 clients',
    'platform',
    CONSTRAINT_MIXES.mix1,
    8,
  );
  const res10one = await resolutionsRow(
    'resolution.platform.mix10.c1',
    'POST resolutions, platform+header, ~10%, 1 client',
    'platform',
    CONSTRAINT_MIXES.mix10,
    1,
  );
  const org3 = await resolutionsRow(
    'resolution.org.mix3.c8',
    'POST resolutions, organization key, ~3%, 8 clients',
    'org',
    CONSTRAINT_MIXES.mix3,
    8,
  );
  const org10 = await resolutionsRow(
    'resolution.org.mix10.c8',
    'POST resolutions, organization key, ~10%, 8 clients',
    'org',
    CONSTRAINT_MIXES.mix10,
    8,
  );
  const grpc10 = await resolutionsRow(
    'resolution.grpc.mix10.c8',
    'gRPC CreateResolution direct, platform, ~10%, 8 clients',
    'grpc',
    CONSTRAINT_MIXES.mix10,
    8,
  );

  const readsRow = (when: 'before' | 'after') => {
    log(
      `GET /api/v2/resolutions/:id, platform+header, ${READ_CLIENTS} clients, ${when} the overload phases (${PHASE_MS / 1000} s)`,
    );
    return run(
      benchResolutionReads(
        {
          id: `resolution-read.platform.c${READ_CLIENTS}${when === 'after' ? '.after-overload' : ''}`,
          label: `GET /api/v2/resolutions/:id, platform+header, ${READ_CLIENTS} clients, ${when} the overload phases`,
          api: platform,
          create: viaPlatform,
          bodies: Array.from({ length: 64 }, () => bodyOf(CONSTRAINT_MIXES.mix10)),
          concurrency: READ_CLIENTS,
          durationMs: PHASE_MS,
        },
        ctx,
      ),
    );
  };
  const readsBefore = await readsRow('before');

  log(`GET /healthz, 8 clients (${PHASE_MS / 1000} s)`);
  const healthz = await run(
    benchGet(
      {
        id: 'healthz.c8',
        label: 'GET /healthz, 8 clients',
        api: platform,
        path: '/healthz',
        concurrency: 8,
        durationMs: PHASE_MS,
      },
      ctx,
    ),
  );

  // The gateway's own cost on a trivial read: REST against the same RPC called directly over gRPC (issue 23).
  log(`GET /api/v2/organizations/:id over REST, then GetOrganization over gRPC, 1 client (${PHASE_MS / 1000} s each)`);
  const orgGetRest = await run(
    benchGet(
      {
        id: 'org-get.rest.c1',
        label: 'GET /api/v2/organizations/:id, REST, platform, 1 client',
        api: platform,
        path: `/api/v2/organizations/${seed.organizationId}`,
        concurrency: 1,
        durationMs: PHASE_MS,
      },
      ctx,
    ),
  );
  const orgGetGrpc = await run(
    benchGrpcGetOrganization(
      {
        id: 'org-get.grpc.c1',
        label: 'GetOrganization, gRPC, platform, 1 client',
        target: seeded.grpcTarget,
        key: platformKey,
        organizationId: seed.organizationId,
        concurrency: 1,
        durationMs: PHASE_MS,
      },
      ctx,
    ),
  );

  log(`resolve + hold + confirm loop, platform+header, ~10%, 8 clients (${PHASE_MS / 1000} s)`);
  const loop = await run(
    benchBookingLoop(
      {
        id: 'booking-loop.platform.mix10.c8',
        label: 'resolve + hold + confirm, platform+header, ~10%, 8 clients',
        api: platform,
        mix: CONSTRAINT_MIXES.mix10,
        rnd,
        serviceIds,
        firstDate,
        usedProviderIds: seed.usedProviderIds,
        concurrency: 8,
        durationMs: PHASE_MS,
      },
      ctx,
    ),
  );

  log(`v1 slots + create, platform+header, 8 clients (${PHASE_MS / 1000} s)`);
  const v1 = await benchV1Create(
    {
      id: 'v1-create.platform.c8',
      label: 'GET /api/v1/slots + POST /api/v1/bookings, platform+header, 8 clients',
      api: platform,
      providers: seed.providers,
      usedProviderIds: seed.usedProviderIds,
      firstDate,
      concurrency: 8,
      durationMs: PHASE_MS,
    },
    ctx,
  );
  if (!v1.skipped) await run(Promise.resolve(v1.measurement));
  else log(`  skipped: ${v1.reason}`);

  log('contention: 200 resolutions of one slot, then 200 confirms at once');
  const contention = await run(
    benchContention(
      {
        id: 'contention.platform.c200',
        label: '200 concurrent confirms on one slot, platform+header',
        api: platform,
        providerId: seed.contention.providerId,
        serviceId: seed.contention.serviceId,
        firstDate,
        count: 200,
      },
      ctx,
    ),
  );
  note('other', tally.take());
  const webhooks = await benchWebhooks({
    url: seeded.url,
    platformKey,
    databaseUrl: stores.databaseUrl,
    raw,
    events: WEBHOOK_EVENTS,
    log,
  });
  const waitlist = await benchWaitlistOffer({
    url: seeded.url,
    platformKey,
    databaseUrl: stores.databaseUrl,
    raw,
    rounds: WAITLIST_ROUNDS,
    log,
  });
  const streams = await benchStreamFlood({ url: seeded.url, platformKey, raw, attempts: STREAM_ATTEMPTS, log });
  note('webhooks and streams', tally.take());
  const rssPeak10k = Math.max(...scenarios.flatMap((s) => s.resources.serviceRssPeakMb));

  log(
    `seeding ${API_SEED_PROVIDERS} providers call by call (provider, service, schedule), ${API_SEED_CLIENTS} clients obeying Retry-After (${API_SEED_RETRIES} retries)`,
  );
  const apiSeed = await seedOrganizationThroughApi(
    {
      id: `api-seed.platform.c${API_SEED_CLIENTS}`,
      label: `seed ${API_SEED_PROVIDERS} providers call by call (POST providers, services, calendar-connections), ${API_SEED_CLIENTS} clients obeying Retry-After`,
      target: target!,
      tally,
      platformKey,
      providerCount: API_SEED_PROVIDERS,
      clients: API_SEED_CLIENTS,
      retries: API_SEED_RETRIES,
      nowMs,
      rnd: createSeededRandom(20_260_303),
    },
    ctx,
  );
  note('api seeding', mergeStatusCounts(apiSeed.measurement.prepStatuses, apiSeed.measurement.statuses));
  log(
    `  ${perSec(apiSeed.writesPerSecond)} writes, lost ${apiSeed.lostWrites} of ${apiSeed.writes}, ${apiSeed.refusals} x 503 waited out; ${apiSeed.providersReadBack} providers read back`,
  );
  const apiOrgCall = httpResolutionCaller(
    createBenchClient(target!, {
      key: platformKey,
      headers: { 'service-organization-id': apiSeed.organizationId },
      tally,
    }),
  );
  const apiOrgCold = await timeOneResolution(
    apiOrgCall,
    bodyOf(CONSTRAINT_MIXES.mix10, apiSeed.serviceIds),
    'first resolution of the call-by-call organization',
  );
  note('first resolution', tally.take());
  log(`POST resolutions on the ${API_SEED_PROVIDERS}-provider organization, ~10%, 8 clients (${PHASE_MS / 1000} s)`);
  const apiOrg = await run(
    benchResolutions(
      {
        id: `resolution.platform.mix10.c8.org${API_SEED_PROVIDERS}`,
        label: `POST resolutions, platform+header, ~10%, 8 clients, the ${API_SEED_PROVIDERS}-provider organization seeded call by call`,
        call: apiOrgCall,
        mix: CONSTRAINT_MIXES.mix10,
        concurrency: ORDINARY_CLIENTS,
        rnd,
        serviceIds: apiSeed.serviceIds,
        firstDate,
        providerCount: API_SEED_PROVIDERS,
        durationMs: PHASE_MS,
      },
      ctx,
    ),
  );

  const overload = await benchOverload(
    {
      call: viaPlatform,
      mix: CONSTRAINT_MIXES.mix10,
      rnd,
      serviceIds,
      firstDate,
      clients: ORDINARY_CLIENTS,
      phaseMs: PHASE_MS,
      quietMs: QUIET_MS,
      log,
    },
    ctx,
  );
  for (const p of [overload.at1x, overload.at4x, overload.at4xAtOnce])
    note(
      `overload ${p.name}`,
      mergeStatusCounts(p.measurement.prepStatuses, p.measurement.statuses),
      p.name === '1x' ? phases : overloadPhases,
    );
  await sleep(QUIET_MS);
  const readsAfter = await readsRow('after');

  // Network adequacy (issue 24): resolutions seeded by SQL into the main organization, after every row it serves.
  const adequacy = await benchNetworkAdequacy(
    {
      api: platform,
      databaseUrl: stores.databaseUrl,
      organizationId: seed.organizationId,
      resolutions: ADEQUACY_RESOLUTIONS,
      dimensions: ADEQUACY_DIMENSIONS,
      concurrency: 1,
      durationMs: PHASE_MS / 2,
      nowMs: Date.now(),
      rnd,
      log,
    },
    ctx,
  );
  note('network adequacy', tally.take());

  let large: Record<string, unknown> | undefined;
  const largeRows: BenchRow[] = [];
  if (LARGE) {
    log(`large organization: ${LARGE_PROVIDERS} providers`);
    const lo = await seedLargeOrganization({
      target: target!,
      tally,
      platformKey,
      databaseUrl: stores.databaseUrl,
      providerCount: LARGE_PROVIDERS,
      apiProviders: LARGE_API_PROVIDERS,
      rowsPerImport: 500,
      nowMs,
      rnd: createSeededRandom(20_260_302),
      log,
    });
    note('large seeding', tally.take());
    log('restarting the service with every organization');
    const restarted = await restartService(platformKey);
    const largeClient = createBenchClient(target!, {
      key: platformKey,
      headers: { 'service-organization-id': lo.organizationId },
      tally,
    });
    const largeCall = httpResolutionCaller(largeClient);
    const largeCold = await timeOneResolution(
      largeCall,
      bodyOf(CONSTRAINT_MIXES.mix10, lo.serviceIds),
      'first resolution of the large organization after restart',
    );
    note('large first resolution', tally.take());
    log(`  first resolution (graph load) ${ms(largeCold.ms)}; 1 client, ~10% (${PHASE_MS / 1000} s)`);
    const largeCtx: MeasureContext = {
      tally,
      processes: { service: [restarted.pid], postgres: stores.postgresPid, redis: stores.redisPid },
      serviceUrl: restarted.url,
    };
    const large1 = await run(
      benchResolutions(
        {
          id: 'resolution.platform.mix10.c1.large',
          label: `POST resolutions, platform+header, ~10%, 1 client, ${lo.providerCount} providers`,
          call: largeCall,
          mix: CONSTRAINT_MIXES.mix10,
          concurrency: 1,
          rnd,
          serviceIds: lo.serviceIds,
          firstDate,
          providerCount: lo.providerCount,
          durationMs: PHASE_MS,
        },
        largeCtx,
      ),
    );
    note('other', tally.take());
    large = {
      organization: { ...lo, importResult: { ...lo.importResult, providerIds: undefined }, serviceIds: undefined },
      restartMs: restarted.startMs,
      reportedReadyMs: restarted.reportedReadyMs,
      firstResolution: largeCold,
    };
    largeRows.push(
      batchRow(
        raw,
        {
          id: 'large.import',
          group: 'large org',
          label: `import the first ${lo.apiProviders} providers (API, ${lo.importResult.calls} x ${lo.importResult.rowsPerCall}, platform key)`,
          count: lo.importResult.created,
          durationMs: lo.importResult.wallMs,
          unit: 'providers',
          clients: 8,
        },
        `${importJobs(lo.importResult.jobMs, lo.importResult.rowsPerCall)}; invalid ${lo.importResult.invalid}, failed jobs ${lo.importResult.failedJobs}`,
      ),
      batchRow(
        raw,
        {
          id: 'large.sql',
          group: 'large org',
          label: `BY DIRECT SQL, not the API: ${lo.sqlProviders} providers + ${lo.providerCount - 1} services and schedules`,
          count: lo.sqlProviders + 2 * (lo.providerCount - 1),
          durationMs: lo.sqlMs,
          unit: 'rows',
          clients: 8,
        },
        'multi-row INSERTs of what the API would store; no audit or outbox events',
      ),
      oneShotRow(
        raw,
        'large.restart',
        'large org',
        `service restart with ${providerCount + API_SEED_PROVIDERS + lo.providerCount} providers stored`,
        restarted.startMs,
        `service says ready in ${restarted.reportedReadyMs ?? '?'} ms`,
      ),
      oneShotRow(
        raw,
        'large.first-resolution',
        'large org',
        'first resolution after restart (graph load), ~10%',
        largeCold.ms,
        `eligible ${largeCold.eligibleProviders}`,
      ),
      measurementRow(raw, 'large org', large1, 'resolutions', lo.providerCount),
    );
  }
  // The baseline again at the end: how much the machine's capacity moved during the run (others share it).
  await service?.process.stop();
  const rawEnd = await measureRawBaseline({ clients: [8], durationMs: RAW_MS, tally, log });
  tally.take();
  const endLoad = machineInfo().loadAverage;

  const imp = seed.importResult;
  const loopNotes = loop.notes;
  const cn = contention.notes;
  const burstRow = (b: ScenarioMeasurement): BenchRow => {
    const row = measurementRow(raw, 'no 503', b, 'answered');
    return {
      id: row.id,
      group: row.group,
      label: row.label,
      timeMs: Number(b.notes.lastAnswerMs),
      p50: b.latency.p50,
      p99: b.latency.p99,
      ...p99OfRaw(raw, b.latency.p99, b.concurrency),
      ...(row.cpu ? { cpu: row.cpu } : {}),
      ...(row.rssMb !== undefined ? { rssMb: row.rssMb } : {}),
      ...(row.serverErrors !== undefined ? { serverErrors: row.serverErrors } : {}),
      answers: `${row.answers}; ${b.notes.refused} x 503; the last answered after ${ms(Number(b.notes.lastAnswerMs))}`,
    };
  };
  rows.push(
    oneShotRow(raw, 'startup.postgres', 'start-up', 'embedded PostgreSQL initdb + start', stores.postgresStartMs),
    oneShotRow(
      raw,
      'startup.empty',
      'start-up',
      'service process, empty stores (spawn to /readyz 200)',
      emptyStart.startMs,
      `service says ready in ${emptyStart.reportedReadyMs ?? '?'} ms`,
    ),
    oneShotRow(
      raw,
      'startup.seeded',
      'start-up',
      `service process, ${providerCount} providers stored`,
      seeded.startMs,
      `service says ready in ${seeded.reportedReadyMs ?? '?'} ms`,
    ),
    oneShotRow(
      raw,
      'startup.first-resolution',
      'start-up',
      'first resolution after restart (graph load), platform, ~10%',
      cold.ms,
      `eligible ${cold.eligibleProviders}`,
    ),
    batchRow(
      raw,
      {
        id: 'seeding.import',
        group: 'seeding',
        label: `import ${imp.created} providers (${imp.calls} x ${imp.rowsPerCall}, platform key)`,
        count: imp.created,
        durationMs: imp.wallMs,
        unit: 'providers',
        clients: 8,
      },
      `${importJobs(imp.jobMs, imp.rowsPerCall)}; invalid ${imp.invalid}, failed jobs ${imp.failedJobs}`,
    ),
    batchRow(raw, {
      id: 'seeding.services',
      group: 'seeding',
      label: `${seed.providers.length} services (POST /api/v2/services, platform+header, 16 in flight)`,
      count: seed.providers.length,
      durationMs: seed.servicesMs,
      unit: 'services',
      clients: 16,
    }),
    batchRow(raw, {
      id: 'seeding.schedules',
      group: 'seeding',
      label: `${seed.providers.length} schedules (POST /api/v2/calendar-connections, 16 in flight)`,
      count: seed.providers.length,
      durationMs: seed.schedulesMs,
      unit: 'schedules',
      clients: 16,
    }),
    batchRow(
      raw,
      {
        id: 'seeding.bookings',
        group: 'seeding',
        label: `${seed.bookingsAttempted} existing bookings (resolve + confirm, 16 in flight)`,
        count: seed.bookingsMade,
        durationMs: seed.bookingsMs,
        unit: 'bookings',
        clients: 16,
      },
      `${seed.bookingsMade}/${seed.bookingsAttempted} made; seeding answers: ${formatStatusCounts(phases.seeding!)}`,
    ),
    ...bursts.map(burstRow),
    apiSeedRow(raw, apiSeed),
    measurementRow(raw, 'resolution', res10, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', clinic, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', res3, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', res1, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', res10one, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', org3, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', org10, 'resolutions', providerCount),
    measurementRow(raw, 'resolution', grpc10, 'resolutions', providerCount),
    {
      ...measurementRow(raw, 'resolution', apiOrg, 'resolutions', API_SEED_PROVIDERS),
      answers: `${formatStatusCounts(apiOrg.statuses)}; first resolution (graph load) ${ms(apiOrgCold.ms)}`,
    },
    measurementRow(raw, 'read', readsBefore, 'reads'),
    measurementRow(raw, 'read', readsAfter, 'reads'),
    measurementRow(raw, 'health', healthz, 'answers'),
    measurementRow(raw, 'org-get', orgGetRest),
    measurementRow(raw, 'org-get', orgGetGrpc),
    ...[...adequacy.byDimension.values()].map((m) => measurementRow(raw, 'adequacy', m)),
    measurementRow(raw, 'booking', loop, 'round trips'),
    {
      id: `${loop.id}.hold-confirm`,
      group: '',
      label: '  hold + confirm of those round trips',
      p50: Number(loopNotes.holdConfirmP50),
      p99: Number(loopNotes.holdConfirmP99),
      answers: `resolve p50/p99 ${ms(Number(loopNotes.resolveP50))}/${ms(Number(loopNotes.resolveP99))}; hold ${ms(Number(loopNotes.holdP50))}/${ms(Number(loopNotes.holdP99))}; confirm ${ms(Number(loopNotes.confirmP50))}/${ms(Number(loopNotes.confirmP99))}; no free option ${loopNotes.noFreeOption}; failures ${loopNotes.failureCodes}`,
    },
  );
  if (v1.skipped)
    rows.push({
      id: 'v1-create.platform.c8',
      group: 'booking',
      label: 'v1 slots + create: SKIPPED',
      answers: v1.reason,
    });
  else rows.push(measurementRow(raw, 'booking', v1.measurement, 'bookings'));
  rows.push(
    measurementRow(raw, 'contention', contention, 'answers'),
    {
      id: `${contention.id}.conflicts`,
      group: '',
      label: `  ${cn.wins} winner(s), ${cn.conflicts} x 409: the 409s`,
      timeMs: contention.elapsedMs,
      p50: Number(cn.conflictP50),
      p99: Number(cn.conflictP99),
      answers: `all answered in ${ms(contention.elapsedMs)}; winner ${ms(Number(cn.winnerMs))}; ${cn.sameSlot}/${cn.resolutions} resolutions offered ${cn.slot}; bookings at that slot read back: ${cn.bookingsAtSlot}`,
    },
    ...webhooks.rows,
    ...waitlist.rows,
    ...streams.rows,
    ...overloadRows(raw, overload),
    ...largeRows,
  );

  const targets = checkTargets({
    raw,
    mix10c8: res10,
    mix10c1: res10one,
    clinic,
    apiSeededOrg: apiOrg,
    apiSeed,
    readsBefore,
    readsAfter,
    healthz,
    orgGetRest,
    orgGetGrpc,
    bursts,
    bookingLoop: loop,
    contention,
    overload,
    streams,
    webhooks,
    adequacy,
    ordinaryStatuses: phases,
    serviceRssPeakMb: rssPeak10k,
  });
  console.log('');
  console.log(renderReport(rows));
  console.log('');
  console.log(
    "vs raw: the row's throughput as a share of the raw node:http hello-world (same generator, same run) at the same client count (or the nearest:",
  );
  console.log(
    '        100 and 200 -> 32); for one timed event, 1/time against raw@1; for bursts and refusals, p99 as a multiple of raw p99.',
  );
  console.log(
    '        CPU: /proc utime+stime over the measured phase divided by the requests answered (pg = postmaster and all its backends;',
  );
  console.log(
    '        gen = this load-generating process). Platform path, 10,000 providers, ~10% mix unless a row says.',
  );
  console.log(
    `raw@8 measured again at the end of the run: ${rawEnd.byClients.get(8)!.perSecond.toFixed(0)}/s (ratios use the ${raw.byClients.get(8)!.perSecond.toFixed(0)}/s of the start)`,
  );
  console.log('');
  for (const t of targets) console.log(targetLine(t));
  const outside = Object.entries(phases).filter(([, c]) => Object.keys(c.serverErrors).length > 0);
  for (const [name, c] of outside)
    console.log(`5xx in ${name}: ${JSON.stringify(c.serverErrors)} ${c.serverErrorSamples.join(' | ')}`);
  console.log('');
  console.log(
    `machine: ${machine.cpuCount} x ${machine.cpuModel}; load average at start ${formatLoad(machine.loadAverage)}, at end ${formatLoad(endLoad)} (1/5/15 min); whole bench ${sec(performance.now() - benchStart)}`,
  );
  const file = writeResultsFile(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs: performance.now() - benchStart,
      machine: { ...machine, loadAverageEnd: endLoad },
      config: {
        providers: providerCount,
        apiSeedProviders: API_SEED_PROVIDERS,
        phaseMs: PHASE_MS,
        rawMs: RAW_MS,
        warmupMs: WARMUP_MS,
        quietMs: QUIET_MS,
        streamAttempts: STREAM_ATTEMPTS,
        webhookEvents: WEBHOOK_EVENTS,
        large: LARGE ? LARGE_PROVIDERS : 0,
        largeApiProviders: LARGE ? LARGE_API_PROVIDERS : 0,
      },
      rows,
      targets,
      raw: [...raw.byClients.values()],
      rawAtEnd: [...rawEnd.byClients.values()],
      startup: {
        postgresStartMs: stores.postgresStartMs,
        redisStartMs: stores.redisStartMs,
        emptyStartMs: emptyStart.startMs,
        emptyReportedReadyMs: emptyStart.reportedReadyMs,
        seededStartMs: seeded.startMs,
        seededReportedReadyMs: seeded.reportedReadyMs,
        firstResolution: cold,
      },
      seeding: {
        import: { ...imp, providerIds: undefined },
        servicesMs: seed.servicesMs,
        schedulesMs: seed.schedulesMs,
        bookingsMs: seed.bookingsMs,
        bookingsMade: seed.bookingsMade,
      },
      apiSeed: { ...apiSeed, serviceIds: undefined },
      scenarios,
      v1: v1.skipped ? v1 : { skipped: false },
      webhooks: { throughput: webhooks.throughput, fairness: webhooks.fairness },
      waitlist: { rounds: waitlist.rounds, delivered: waitlist.delivered, offered: waitlist.offered },
      streams: { ...streams, rows: undefined },
      overload,
      large,
      statusesByPhase: phases,
      overloadStatuses: overloadPhases,
    },
    startedAt,
  );
  console.log(`raw results: ${file} (npm run bench:summary -- <files> prints the spread of several runs)`);
}

try {
  await main();
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await shutdown();
}
