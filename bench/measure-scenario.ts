import { readRefusalCounts, refusalsBetween, type RefusalCounts } from './admission-refusals.js';
import { runClosedLoop, type TaskOutcome } from './closed-loop.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { startResourceProbe, type ProbedProcesses, type ResourceUse } from './resource-probe.js';
import { mergeStatusCounts, type ResponseTally, type StatusCounts } from './response-tally.js';

/** Whether a task runs in the warm-up (not counted) or the measured phase. */
export type ScenarioPhase = 'warmup' | 'measure';

/** One scenario: a closed loop of `concurrency` clients running `task`. */
export interface ScenarioSpec {
  /** Stable key of the row in the results file (e.g. `resolution.platform.mix10.c8`). */
  id: string;
  /** What the row measures, as printed. */
  label: string;
  concurrency: number;
  durationMs: number;
  /** Closed loop before the measured one, to open connections and warm the JIT (default 1000 ms; 0 for none). */
  warmupMs?: number;
  /** At most this many tasks per client (1: every client runs its task once, all at the same time). */
  perClientLimit?: number;
  task: (client: number, phase: ScenarioPhase) => Promise<TaskOutcome>;
}

/** Where a scenario's answers are counted and whose resources it reports. */
export interface MeasureContext {
  tally: ResponseTally;
  processes: ProbedProcesses;
  /** The service's base URL: its admission refusals (/metrics) are read before and after each scenario. */
  serviceUrl?: string;
}

/** What one scenario measured. */
export interface ScenarioMeasurement {
  id: string;
  label: string;
  concurrency: number;
  elapsedMs: number;
  /** Successful tasks per second of the measured phase. */
  perSecond: number;
  /** Latency of the successful tasks (ms). */
  latency: LatencyStats;
  failures: number;
  /** Answers of the measured phase by status. */
  statuses: StatusCounts;
  /** Answers before it (preparation and warm-up), where a 5xx counts as much. */
  prepStatuses: StatusCounts;
  resources: ResourceUse;
  /** CPU (ms) per answered request of the measured phase, per party. */
  cpuMsPerRequest: { service: number; postgres: number; redis: number; generator: number };
  /** Figures of the scenario itself (eligible providers, hold and confirm latency...). */
  notes: Record<string, number | string>;
  /** What the service's admission refused over the scenario, warm-up included, by gate/reason (with a serviceUrl). */
  refusedByService?: RefusalCounts;
}

/**
 * The bench's one measurement: warms up, then runs the closed loop while counting every answer by status and
 * reading the CPU of the service, PostgreSQL, Redis and the load generator and the service's RSS; with a serviceUrl,
 * also what the service's admission refused meanwhile, by reason.
 */
export async function measureScenario(spec: ScenarioSpec, ctx: MeasureContext): Promise<ScenarioMeasurement> {
  const before = ctx.tally.take();
  const refusalsBefore = ctx.serviceUrl ? await readRefusalCounts(ctx.serviceUrl) : undefined;
  const warmupMs = spec.warmupMs ?? 1000;
  if (warmupMs > 0)
    await runClosedLoop({
      concurrency: spec.concurrency,
      durationMs: warmupMs,
      perClientLimit: spec.perClientLimit,
      task: (c) => spec.task(c, 'warmup'),
    });
  const prepStatuses = mergeStatusCounts(before, ctx.tally.take());
  const probe = startResourceProbe(ctx.processes);
  const r = await runClosedLoop({
    concurrency: spec.concurrency,
    durationMs: spec.durationMs,
    perClientLimit: spec.perClientLimit,
    task: (c) => spec.task(c, 'measure'),
  });
  const resources = probe.stop();
  const statuses = ctx.tally.take();
  const refusedByService =
    ctx.serviceUrl && refusalsBefore
      ? refusalsBetween(refusalsBefore, await readRefusalCounts(ctx.serviceUrl))
      : undefined;
  const per = (ms: number) => (statuses.total > 0 ? ms / statuses.total : Number.NaN);
  return {
    id: spec.id,
    label: spec.label,
    concurrency: spec.concurrency,
    elapsedMs: r.elapsedMs,
    perSecond: r.latencies.length / (r.elapsedMs / 1000),
    latency: latencyStats(r.latencies),
    failures: r.failures,
    statuses,
    prepStatuses,
    resources,
    cpuMsPerRequest: {
      service: per(resources.serviceCpuMs),
      postgres: per(resources.postgresCpuMs),
      redis: per(resources.redisCpuMs),
      generator: per(resources.generatorCpuMs),
    },
    notes: {},
    ...(refusedByService ? { refusedByService } : {}),
  };
}
