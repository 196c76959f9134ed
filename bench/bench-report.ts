import type { ScenarioMeasurement } from './measure-scenario.js';
import { baselineFor, type RawBaseline } from './raw-baseline.js';
import { ms, percent, perSec, renderTable, sec } from './report-table.js';
import { formatStatusCounts, serverErrorCount } from './response-tally.js';

/** Columns of the bench table. */
export const REPORT_HEADER = [
  'scenario',
  'what',
  'rate / time',
  'latency p50 / p99',
  'vs raw',
  'eligible (mean)',
  'CPU ms/req svc / pg / redis / gen',
  'svc RSS peak',
  'answers',
] as const;

/** A row of the bench table, one cell per column of REPORT_HEADER. */
export type ReportRow = string[];

const cpu = (m: ScenarioMeasurement) => {
  const c = m.cpuMsPerRequest;
  return [c.service, c.postgres, c.redis, c.generator]
    .map((x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a'))
    .join(' / ');
};

/** The `vs raw` cell of a throughput: its share of the raw baseline with the same (or nearest) client count. */
export function vsRaw(raw: RawBaseline, perSecond: number, clients: number): string {
  if (raw.byClients.size === 0) return 'n/a';
  const base = baselineFor(raw, clients);
  return `${percent(perSecond / base.perSecond)} of raw@${base.concurrency}`;
}

/** A row of a closed-loop measurement; `unit` names what one success is (resolutions, round trips...). */
export function measurementRow(
  raw: RawBaseline,
  group: string,
  m: ScenarioMeasurement,
  unit = 'req',
  providerCount?: number,
): ReportRow {
  const eligible =
    m.notes.meanEligibleProviders === undefined
      ? ''
      : `${Number(m.notes.meanEligibleProviders).toFixed(0)} (${percent(Number(m.notes.eligibleShare))}${providerCount ? ` of ${providerCount}` : ''})`;
  const prep5xx = serverErrorCount(m.prepStatuses);
  return [
    group,
    m.label,
    `${perSec(m.perSecond)} ${unit}`,
    `${ms(m.latency.p50)} / ${ms(m.latency.p99)}`,
    vsRaw(raw, m.perSecond, m.concurrency),
    eligible,
    cpu(m),
    `${Math.max(...m.resources.serviceRssPeakMb).toFixed(0)} MB`,
    `${formatStatusCounts(m.statuses)}${m.failures ? `; ${m.failures} failed` : ''}${prep5xx ? `; ${prep5xx} x 5xx before (${Object.keys(m.prepStatuses.serverErrors).join(', ')})` : ''}`,
  ];
}

/** A row of one timed event (start-up, first resolution): its time, and 1/time as a share of raw@1. */
export function oneShotRow(raw: RawBaseline, group: string, what: string, durationMs: number, note = ''): ReportRow {
  return [group, what, ms(durationMs), '', vsRaw(raw, 1000 / durationMs, 1), '', '', '', note];
}

/** A row of a batch (seeding): `count` items in `durationMs`, their rate as a share of raw@`clients`. */
export function batchRow(
  raw: RawBaseline,
  group: string,
  what: string,
  count: number,
  durationMs: number,
  unit: string,
  clients: number,
  note = '',
): ReportRow {
  const rate = count / (durationMs / 1000);
  return [group, what, `${sec(durationMs)} (${perSec(rate)} ${unit})`, '', vsRaw(raw, rate, clients), '', '', '', note];
}

/** Renders the table. */
export function renderReport(rows: readonly ReportRow[]): string {
  return renderTable(REPORT_HEADER, rows);
}
