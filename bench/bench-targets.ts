import type { ScenarioMeasurement } from './measure-scenario.js';
import { baselineFor, type RawBaseline } from './raw-baseline.js';
import { ms, percent, perSec } from './report-table.js';
import { serverErrorCount, type StatusCounts } from './response-tally.js';

/** One target of issue 11 checked against a run. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/** The rows the targets are read from (platform path, 10,000 providers, ~10% eligible). */
export interface TargetInputs {
  raw: RawBaseline;
  resolutions8: ScenarioMeasurement;
  resolutions1: ScenarioMeasurement;
  reads32: ScenarioMeasurement;
  bookingLoop: ScenarioMeasurement;
  contention: ScenarioMeasurement;
  /** Every phase's answers (measured, warm-up, preparation, seeding), by phase name. */
  allStatuses: Record<string, StatusCounts>;
  /** Peak RSS (MB) of the service over the 10,000-provider scenarios. */
  serviceRssPeakMb: number;
}

/** Checks the targets of issue 11 ("Benchmark"), expressed against the raw node:http baseline of the same run. */
export function checkTargets(t: TargetInputs): TargetCheck[] {
  const share = (m: ScenarioMeasurement) => m.perSecond / baselineFor(t.raw, m.concurrency).perSecond;
  const n = t.contention.notes;
  const with5xx = Object.entries(t.allStatuses).filter(([, c]) => serverErrorCount(c) > 0);
  const total5xx = with5xx.reduce((s, [, c]) => s + serverErrorCount(c), 0);
  return [
    {
      target: 'resolutions, 8 clients: >= 0.4% of raw@8',
      measured: `${perSec(t.resolutions8.perSecond)} = ${percent(share(t.resolutions8))} of raw@${baselineFor(t.raw, 8).concurrency}`,
      met: share(t.resolutions8) >= 0.004,
    },
    {
      target: 'resolutions, 8 clients: p99 <= 100 ms',
      measured: ms(t.resolutions8.latency.p99),
      met: t.resolutions8.latency.p99 <= 100,
    },
    {
      target: 'resolutions, 1 client: p50 <= 10 ms',
      measured: ms(t.resolutions1.latency.p50),
      met: t.resolutions1.latency.p50 <= 10,
    },
    {
      target: 'GET resolution, 32 clients: >= 2.5% of raw@32',
      measured: `${perSec(t.reads32.perSecond)} = ${percent(share(t.reads32))} of raw@${baselineFor(t.raw, 32).concurrency}`,
      met: share(t.reads32) >= 0.025,
    },
    {
      target: 'resolve + hold + confirm: >= 100 round trips/s',
      measured: perSec(t.bookingLoop.perSecond),
      met: t.bookingLoop.perSecond >= 100,
    },
    {
      target: 'hold + confirm: p99 <= 60 ms',
      measured: ms(Number(t.bookingLoop.notes.holdConfirmP99)),
      met: Number(t.bookingLoop.notes.holdConfirmP99) <= 60,
    },
    {
      target: `${t.contention.concurrency} confirms on one slot: exactly one winner, one booking`,
      measured: `${n.wins} winner(s), ${n.conflicts} x 409, ${n.bookingsAtSlot} booking(s) at the slot`,
      met: n.wins === 1 && n.bookingsAtSlot === 1 && Number(n.conflicts) === t.contention.concurrency - 1,
    },
    { target: 'contention: 409 p99 <= 100 ms', measured: ms(Number(n.conflictP99)), met: Number(n.conflictP99) <= 100 },
    {
      target: 'zero 5xx in every scenario (seeding and warm-ups included)',
      measured: total5xx === 0 ? '0' : `${total5xx} in ${with5xx.map(([k]) => k).join(', ')}`,
      met: total5xx === 0,
    },
    {
      target: 'service RSS <= 400 MB (10,000 providers)',
      measured: `peak ${t.serviceRssPeakMb.toFixed(0)} MB`,
      met: t.serviceRssPeakMb <= 400,
    },
  ];
}
