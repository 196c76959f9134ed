import { performance } from 'node:perf_hooks';
import type { RefusalCounts } from './admission-refusals.js';
import { measurementRow, p99OfRaw, shareOfRaw, type BenchRow } from './bench-report.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import type { RawBaseline } from './raw-baseline.js';
import { ms, percent, perSec } from './report-table.js';
import type { ResolutionCaller } from './resolution-load.js';
import { resolutionBody, type ConstraintMix } from './resolution-requests.js';
import { formatStatusCounts } from './response-tally.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

/** What the overload scenario needs: a resolution caller on the platform path and the seeded organization. */
export interface OverloadLoad {
  call: ResolutionCaller;
  mix: ConstraintMix;
  rnd: SeededRandom;
  serviceIds: readonly string[];
  firstDate: string;
  /** Clients of the ordinary load (1x; the 8); 4x is four times as many. */
  clients: number;
  /** Length of each measured phase (each after a 1 s warm-up at its own load). */
  phaseMs: number;
  /** Quiet before the 1x phase, so what ran before does not reach into it. */
  quietMs: number;
  log: (line: string) => void;
}

/** What a refused client waits when the 503 names no Retry-After (the service always sends 1 s). */
const DEFAULT_RETRY_AFTER_MS = 1000;

/** One phase: the measurement of its admitted requests and what was refused. */
export interface OverloadPhase {
  /** `1x`, `4x` (clients wait Retry-After when refused) or `4x-at-once` (they send again at once). */
  name: '1x' | '4x' | '4x-at-once';
  clients: number;
  /** Admitted requests (200) and their latency; `perSecond` is the goodput. */
  measurement: ScenarioMeasurement;
  /** 503 answers in the measured phase, and how long each took to come back. */
  refused: number;
  refusedLatency: LatencyStats;
  /** refused / (admitted + refused). */
  refusedShare: number;
  /** Answers neither 200 nor 503 in the measured phase. */
  other: number;
  /** What the service's admission refused over the phase (warm-up included), by gate/reason (with ctx.serviceUrl). */
  refusedByReason: RefusalCounts;
}

/** What the overload scenario found. */
export interface OverloadResult {
  at1x: OverloadPhase;
  at4x: OverloadPhase;
  at4xAtOnce: OverloadPhase;
  /** Admitted p99 at 4x over the 1x p99 (target: <= 2), for clients that wait Retry-After and for those that do not. */
  p99Ratio: number;
  p99RatioAtOnce: number;
  /** Answers with status 500 in any phase, warm-ups included (target: 0). */
  internalErrors: number;
}

/**
 * Overload as users make it: 1x is the ordinary load (the issue's 8 clients of ~10% resolutions on the platform
 * path), then 4x that many clients twice: clients that wait the 503's Retry-After before their next request, as the
 * contract asks, and clients that send their next request at once. Notes goodput (admitted per second), the admitted
 * latency, the refusals and how fast they were answered, and the service's own refusal counters by reason.
 */
export async function benchOverload(o: OverloadLoad, ctx: MeasureContext): Promise<OverloadResult> {
  let internalErrors = 0;
  const phase = async (name: OverloadPhase['name'], clients: number): Promise<OverloadPhase> => {
    const patient = name !== '4x-at-once';
    let other = 0;
    const refusedMs: number[] = [];
    let endsAt = Number.POSITIVE_INFINITY;
    const measurement = await measureScenario(
      {
        id: `overload.platform.${o.mix.id}.c${clients}${patient ? '' : '.at-once'}`,
        label: `${name}: POST resolutions, platform+header, ${o.mix.id}, ${clients} clients${name === '1x' ? '' : patient ? ', waiting Retry-After when refused' : ', sending again at once when refused'}`,
        concurrency: clients,
        durationMs: o.phaseMs,
        task: async (_client, p) => {
          if (p === 'measure' && endsAt === Number.POSITIVE_INFINITY) endsAt = performance.now() + o.phaseMs;
          const res = await o.call(
            resolutionBody(o.mix, o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: 14 }),
          );
          if (res.status === 500) internalErrors++;
          if (res.status === 200) return res.ms;
          if (res.status === 503) {
            if (p === 'measure') refusedMs.push(res.ms);
            // The wait ends with the phase, so a waiting client does not stretch it.
            const wait = patient
              ? Math.min(
                  res.retryAfterSeconds !== undefined ? res.retryAfterSeconds * 1000 : DEFAULT_RETRY_AFTER_MS,
                  Math.max(0, endsAt - performance.now()),
                )
              : 0;
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          } else if (p === 'measure') other++;
          return 'fail';
        },
      },
      ctx,
    );
    const refusedByReason = measurement.refusedByService ?? {};
    const admitted = measurement.latency.count;
    const refusedLatency = latencyStats(refusedMs);
    const result: OverloadPhase = {
      name,
      clients,
      measurement,
      refused: refusedMs.length,
      refusedLatency,
      refusedShare: refusedMs.length / Math.max(1, admitted + refusedMs.length),
      other,
      refusedByReason,
    };
    o.log(
      `  ${name}, ${clients} clients: ${perSec(measurement.perSecond)} admitted, p50 ${ms(measurement.latency.p50)}, p99 ${ms(measurement.latency.p99)}; refused ${refusedMs.length} (${percent(result.refusedShare)}), answered p99 ${ms(refusedLatency.p99)}; ${formatStatusCounts(measurement.statuses)}`,
    );
    return result;
  };
  await new Promise((r) => setTimeout(r, o.quietMs));
  o.log(`overload: 1x = ${o.clients} clients, then 4x = ${4 * o.clients} clients twice (${o.phaseMs / 1000} s each)`);
  const at1x = await phase('1x', o.clients);
  const at4x = await phase('4x', 4 * o.clients);
  const at4xAtOnce = await phase('4x-at-once', 4 * o.clients);
  const p99 = (p: OverloadPhase) => p.measurement.latency.p99;
  return {
    at1x,
    at4x,
    at4xAtOnce,
    p99Ratio: p99(at4x) / p99(at1x),
    p99RatioAtOnce: p99(at4xAtOnce) / p99(at1x),
    internalErrors,
  };
}

/** The rows of the bench table for the overload scenario: each phase's goodput, and its refusals. */
export function overloadRows(raw: RawBaseline, r: OverloadResult): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const p of [r.at1x, r.at4x, r.at4xAtOnce]) {
    const m = p.measurement;
    const admitted = measurementRow(raw, 'overload', m, 'admitted');
    const ratio = p === r.at1x ? '' : ` = ${(m.latency.p99 / r.at1x.measurement.latency.p99).toFixed(2)}x the 1x p99`;
    rows.push({ ...admitted, answers: `${admitted.answers}${ratio}` });
    if (p.refused === 0 && p === r.at1x) continue;
    const refusedRate = p.refused / (m.elapsedMs / 1000);
    rows.push({
      id: `${m.id}.refused`,
      group: '',
      label: `  refused (503, Retry-After) of those ${p.clients} clients`,
      rate: refusedRate,
      unit: 'refused',
      p50: p.refusedLatency.p50,
      p99: p.refusedLatency.p99,
      ...shareOfRaw(raw, refusedRate, p.clients),
      ...(Number.isFinite(p.refusedLatency.p99)
        ? { p99VsRaw: p99OfRaw(raw, p.refusedLatency.p99, p.clients).p99VsRaw }
        : {}),
      answers: `${p.refused} refused (${percent(p.refusedShare)} of answers); other ${p.other}; service counted ${JSON.stringify(p.refusedByReason)}`,
    });
  }
  return rows;
}
