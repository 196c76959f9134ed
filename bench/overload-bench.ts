import { performance } from 'node:perf_hooks';
import type { ReportRow } from './bench-report.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { baselineFor, type RawBaseline } from './raw-baseline.js';
import { ms, percent, perSec } from './report-table.js';
import type { ResolutionCaller } from './resolution-load.js';
import { resolutionBody, type ConstraintMix } from './resolution-requests.js';
import { formatStatusCounts } from './response-tally.js';
import { benchMetrics } from './bench-service.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** What the overload scenario needs: a resolution caller on the platform path and the seeded organization. */
export interface OverloadLoad {
  call: ResolutionCaller;
  mix: ConstraintMix;
  rnd: SeededRandom;
  serviceIds: readonly string[];
  firstDate: string;
  /** The service's base URL, for its admission counters on /metrics. */
  serviceUrl: string;
  raw: RawBaseline;
  /** Client counts of the sweep that finds the sustainable load (default 1, 2, 3, 4, 6, 8). */
  sweep?: readonly number[];
  sweepMs: number;
  /** Length of the 1x and 4x phases. */
  phaseMs: number;
  log: (line: string) => void;
}

/** What a shed client waits before its next request: the service's Retry-After (1 s; test/gateway/admit-requests.test.ts). */
const RETRY_AFTER_MS = 1000;

/** One phase: the measurement of its admitted requests and what was refused. */
export interface OverloadPhase {
  clients: number;
  measurement: ScenarioMeasurement;
  /** 503 SERVICE_UNAVAILABLE answers (shed) in the measured phase. */
  shed: number;
  /** Answers neither 200 nor shed (a 500 among them would be a failure of the scenario). */
  other: number;
  /** shed / (admitted + shed). */
  shedShare: number;
  /** Increase of the service's scheduling_admission_shed_total over the phase, by gate. */
  shedByGate: Record<string, number>;
}

/** What the overload scenario found. */
export interface OverloadResult {
  sweep: OverloadPhase[];
  /**
   * Clients at which throughput stopped rising: the first count reaching 90% of the sweep's peak throughput, or the
   * largest count below it that nothing was shed at (a load the service sheds from is not sustained).
   */
  sustainableClients: number;
  at1x: OverloadPhase;
  at4x: OverloadPhase;
  /** The same 4x load with clients that retry a shed request at once instead of waiting Retry-After. */
  at4xImpatient: OverloadPhase;
  /** Admitted p99 at 4x divided by admitted p99 at 1x (target: <= 2). */
  p99Ratio: number;
  /** Answers with status 500 over every phase (target: 0). */
  internalErrors: number;
}

/** The service's scheduling_admission_shed_total by gate, read from its /metrics. */
async function shedCounters(url: string): Promise<Record<string, number>> {
  const text = await benchMetrics(url);
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^scheduling_admission_shed_total\{gate="([^"]+)"\} (\S+)$/gm))
    out[m[1]!] = Number(m[2]);
  return out;
}

/**
 * Finds the sustainable load of resolution requests and loads the service at 1x and at 4x that many clients. A
 * client follows the contract's advice: a shed request (503 SERVICE_UNAVAILABLE) waits its Retry-After before the
 * next (capped at the phase's end); a last 4x phase retries at once, as a client ignoring the advice would.
 */
export async function benchOverload(o: OverloadLoad, ctx: MeasureContext): Promise<OverloadResult> {
  let internalErrors = 0;
  const phase = async (
    clients: number,
    durationMs: number,
    patient: boolean,
    label: string,
  ): Promise<OverloadPhase> => {
    let shed = 0;
    let other = 0;
    let measuring = false;
    let endsAt = Number.POSITIVE_INFINITY;
    const before = await shedCounters(o.serviceUrl);
    const measurement = await measureScenario(
      {
        id: `overload.platform.${o.mix.id}.c${clients}${patient ? '' : '.impatient'}`,
        label,
        concurrency: clients,
        durationMs,
        task: async (_client, p) => {
          if (p === 'measure' && !measuring) {
            measuring = true;
            endsAt = performance.now() + durationMs;
          }
          const res = await o.call(
            resolutionBody(o.mix, o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: 14 }),
          );
          if (res.status === 500) internalErrors++;
          if (res.status === 200) return res.ms;
          if (res.status === 503 && res.body?.error?.code === 'SERVICE_UNAVAILABLE') {
            if (p === 'measure') shed++;
            const wait = patient ? Math.min(RETRY_AFTER_MS, Math.max(0, endsAt - performance.now())) : 0;
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          } else if (p === 'measure') other++;
          return 'fail';
        },
      },
      ctx,
    );
    const after = await shedCounters(o.serviceUrl);
    const shedByGate = Object.fromEntries(
      Object.entries(after)
        .map(([g, n]) => [g, n - (before[g] ?? 0)])
        .filter(([, n]) => Number(n) > 0),
    );
    const admitted = measurement.latency.count;
    const result = { clients, measurement, shed, other, shedShare: shed / Math.max(1, admitted + shed), shedByGate };
    o.log(
      `  ${clients} clients${patient ? '' : ' (retrying at once)'}: ${perSec(measurement.perSecond)} admitted, p50 ${ms(measurement.latency.p50)}, p99 ${ms(measurement.latency.p99)}; shed ${shed} (${percent(result.shedShare)}); ${formatStatusCounts(measurement.statuses)}`,
    );
    return result;
  };

  const sweep: OverloadPhase[] = [];
  for (const clients of o.sweep ?? [1, 2, 3, 4, 6, 8]) {
    o.log(`overload sweep: resolutions, platform, ${o.mix.id}, ${clients} client(s), ${o.sweepMs / 1000} s`);
    sweep.push(
      await phase(
        clients,
        o.sweepMs,
        true,
        `sweep: POST resolutions, platform+header, ${o.mix.id}, ${clients} client(s)`,
      ),
    );
  }
  const peak = Math.max(...sweep.map((p) => p.measurement.perSecond));
  const knee = sweep.find((p) => p.measurement.perSecond >= 0.9 * peak)!.clients;
  const sustainableClients = Math.max(
    sweep[0]!.clients,
    ...sweep.filter((p) => p.clients <= knee && p.shed === 0).map((p) => p.clients),
  );
  o.log(
    `sustainable load: ${sustainableClients} client(s) (first to reach 90% of the peak ${perSec(peak)}: ${knee}, without shedding); 1x and 4x for ${o.phaseMs / 1000} s each`,
  );
  const at1x = await phase(
    sustainableClients,
    o.phaseMs,
    true,
    `POST resolutions at the sustainable load (1x): ${sustainableClients} client(s)`,
  );
  const at4x = await phase(
    4 * sustainableClients,
    o.phaseMs,
    true,
    `POST resolutions at 4x: ${4 * sustainableClients} clients waiting Retry-After when shed`,
  );
  const at4xImpatient = await phase(
    4 * sustainableClients,
    o.phaseMs,
    false,
    `POST resolutions at 4x: ${4 * sustainableClients} clients retrying at once when shed`,
  );
  return {
    sweep,
    sustainableClients,
    at1x,
    at4x,
    at4xImpatient,
    p99Ratio: at4x.measurement.latency.p99 / at1x.measurement.latency.p99,
    internalErrors,
  };
}

/** `x of raw@N`: a throughput or a latency as a multiple or share of the raw baseline at the nearest client count. */
function ofRaw(raw: RawBaseline, value: number, clients: number, kind: 'rate' | 'latency'): string {
  if (raw.byClients.size === 0) return 'n/a';
  const base = baselineFor(raw, clients);
  if (kind === 'rate') return `${percent(value / base.perSecond)} of raw@${base.concurrency}`;
  return `${(value / base.latency.p99).toFixed(0)}x raw@${base.concurrency} p99`;
}

/** The rows of the bench table for the overload scenario. */
export function overloadRows(raw: RawBaseline, r: OverloadResult): ReportRow[] {
  const row = (what: string, p: OverloadPhase): ReportRow => {
    const m = p.measurement;
    const shedRate = p.shed / (m.elapsedMs / 1000);
    return [
      'overload',
      what,
      `${perSec(m.perSecond)} admitted`,
      `${ms(m.latency.p50)} / ${ms(m.latency.p99)}`,
      `${ofRaw(raw, m.perSecond, p.clients, 'rate')}; p99 ${ofRaw(raw, m.latency.p99, p.clients, 'latency')}`,
      '',
      '',
      `${Math.max(...m.resources.serviceRssPeakMb).toFixed(0)} MB`,
      `shed ${p.shed} (${percent(p.shedShare)}, ${perSec(shedRate)} = ${ofRaw(raw, shedRate, p.clients, 'rate')}; gates ${JSON.stringify(p.shedByGate)}); ${formatStatusCounts(m.statuses)}`,
    ];
  };
  return [
    ...r.sweep.map((p) =>
      row(`sweep, ${p.clients} client(s)${p.clients === r.sustainableClients ? ' = sustainable load' : ''}`, p),
    ),
    row(`1x: ${r.at1x.clients} client(s)`, r.at1x),
    row(`4x: ${r.at4x.clients} clients (wait Retry-After when shed)`, r.at4x),
    row(`4x: ${r.at4xImpatient.clients} clients (retry at once when shed)`, r.at4xImpatient),
  ];
}

/** The overload targets: admitted p99 at 4x within 2x of 1x, and no 500. */
export function overloadTargets(r: OverloadResult): { target: string; measured: string; met: boolean }[] {
  return [
    {
      target: 'overload: admitted p99 at 4x the sustainable load <= 2x the p99 at 1x',
      measured: `${ms(r.at4x.measurement.latency.p99)} / ${ms(r.at1x.measurement.latency.p99)} = ${r.p99Ratio.toFixed(2)}x (clients retrying at once: ${(r.at4xImpatient.measurement.latency.p99 / r.at1x.measurement.latency.p99).toFixed(2)}x)`,
      met: r.p99Ratio <= 2,
    },
    {
      target: 'overload: no 500 answered (sweep, 1x, 4x)',
      measured: String(r.internalErrors),
      met: r.internalErrors === 0,
    },
  ];
}
