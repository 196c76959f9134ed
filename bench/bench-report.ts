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

/** CPU (ms) per answered request of each party of a row. */
export interface CpuPerRequest {
  service: number;
  postgres: number;
  redis: number;
  generator: number;
}

/**
 * One row of the bench table as figures (written to the results file, so `npm run bench:summary` can show each
 * figure's spread over several runs); `renderReport` formats it. Every figure is optional: a row shows what it has.
 */
export interface BenchRow {
  /** Stable key of the row across runs (`resolution.platform.mix10.c8`). */
  id: string;
  group: string;
  label: string;
  /** Successes per second, and what one success is (`resolutions`). */
  rate?: number;
  unit?: string;
  /** How long a one-shot event or a batch took (ms). */
  timeMs?: number;
  p50?: number;
  p99?: number;
  /** The rate as a share of the raw baseline at `rawClients` clients (the row's own count, or the nearest measured). */
  share?: number;
  rawClients?: number;
  /** p99 as a multiple of the raw baseline's p99 at `rawClients` (rows whose figure is a latency). */
  p99VsRaw?: number;
  eligible?: number;
  eligibleShare?: number;
  providerCount?: number;
  cpu?: CpuPerRequest;
  rssMb?: number;
  /** Server errors (5xx, transport failures) among the row's answers. */
  serverErrors?: number;
  /** The answers by status, as printed (text: the summary shows the first run's). */
  answers?: string;
}

/** The share of `raw` a throughput at `clients` clients is, with the client count of the baseline it is read against. */
export function shareOfRaw(
  raw: RawBaseline,
  perSecond: number,
  clients: number,
): { share: number; rawClients: number } {
  if (raw.byClients.size === 0) return { share: Number.NaN, rawClients: clients };
  const base = baselineFor(raw, clients);
  return { share: perSecond / base.perSecond, rawClients: base.concurrency };
}

/** A latency's multiple of the raw baseline's p99 at the nearest client count. */
export function p99OfRaw(raw: RawBaseline, p99: number, clients: number): { p99VsRaw: number; rawClients: number } {
  if (raw.byClients.size === 0) return { p99VsRaw: Number.NaN, rawClients: clients };
  const base = baselineFor(raw, clients);
  return { p99VsRaw: p99 / base.latency.p99, rawClients: base.concurrency };
}

/** A row of a closed-loop measurement; `unit` names what one success is (resolutions, round trips...). */
export function measurementRow(
  raw: RawBaseline,
  group: string,
  m: ScenarioMeasurement,
  unit = 'req',
  providerCount?: number,
): BenchRow {
  const prep5xx = serverErrorCount(m.prepStatuses);
  const refused =
    m.refusedByService && Object.keys(m.refusedByService).length > 0 ? JSON.stringify(m.refusedByService) : '';
  return {
    id: m.id,
    group,
    label: m.label,
    rate: m.perSecond,
    unit,
    p50: m.latency.p50,
    p99: m.latency.p99,
    ...shareOfRaw(raw, m.perSecond, m.concurrency),
    ...(m.notes.meanEligibleProviders === undefined
      ? {}
      : {
          eligible: Number(m.notes.meanEligibleProviders),
          eligibleShare: Number(m.notes.eligibleShare),
          ...(providerCount ? { providerCount } : {}),
        }),
    cpu: m.cpuMsPerRequest,
    rssMb: Math.max(...m.resources.serviceRssPeakMb),
    serverErrors: serverErrorCount(m.statuses) + prep5xx,
    answers: `${formatStatusCounts(m.statuses)}${m.failures ? `; ${m.failures} failed` : ''}${prep5xx ? `; ${prep5xx} x 5xx before (${Object.keys(m.prepStatuses.serverErrors).join(', ')})` : ''}${refused ? `; service refused ${refused}` : ''}`,
  };
}

/** A row of one timed event (start-up, first resolution): its time, and 1/time as a share of raw@1. */
export function oneShotRow(
  raw: RawBaseline,
  id: string,
  group: string,
  label: string,
  durationMs: number,
  answers = '',
): BenchRow {
  return { id, group, label, timeMs: durationMs, ...shareOfRaw(raw, 1000 / durationMs, 1), answers };
}

/** A row of a batch (seeding): `count` items in `durationMs`, their rate as a share of raw@`clients`. */
export function batchRow(
  raw: RawBaseline,
  o: { id: string; group: string; label: string; count: number; durationMs: number; unit: string; clients: number },
  answers = '',
): BenchRow {
  const rate = o.count / (o.durationMs / 1000);
  return {
    id: o.id,
    group: o.group,
    label: o.label,
    rate,
    unit: o.unit,
    timeMs: o.durationMs,
    ...shareOfRaw(raw, rate, o.clients),
    answers,
  };
}

/** Formats each of `values` with `format`, as one value when all print alike, else as `min-max` over the runs. */
export type FigureFormat = (values: readonly number[], format: (x: number) => string) => string;

/** One run's figure: its single value. */
const single: FigureFormat = (values, format) => format(values[0]!);

/** The text cells of a row; `figure` turns a figure's values over the runs into text (one run: the value). */
export function rowCells(rows: readonly BenchRow[], figure: FigureFormat = single): string[] {
  const r = rows[0]!;
  const pick = (get: (x: BenchRow) => number | undefined): number[] | undefined => {
    const values = rows.map(get).filter((x): x is number => x !== undefined);
    return values.length > 0 ? values : undefined;
  };
  const show = (get: (x: BenchRow) => number | undefined, format: (x: number) => string) => {
    const values = pick(get);
    return values ? figure(values, format) : undefined;
  };
  const rate = show((x) => x.rate, perSec);
  const time = show((x) => x.timeMs, r.rate !== undefined ? sec : ms);
  const rateTime =
    rate !== undefined && time !== undefined
      ? `${time} (${rate} ${r.unit ?? ''})`
      : rate !== undefined
        ? `${rate} ${r.unit ?? ''}`
        : (time ?? '');
  const p50 = show((x) => x.p50, ms);
  const p99 = show((x) => x.p99, ms);
  const latency = p50 !== undefined || p99 !== undefined ? `${p50 ?? '-'} / ${p99 ?? '-'}` : '';
  const share = show((x) => x.share, percent);
  const p99VsRaw = show(
    (x) => x.p99VsRaw,
    (x) => `${x.toFixed(1)}x`,
  );
  const vsRaw = [
    share !== undefined ? `${share} of raw@${r.rawClients}` : undefined,
    p99VsRaw !== undefined ? `p99 = ${p99VsRaw} raw@${r.rawClients} p99` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
  const eligibleCount = show(
    (x) => x.eligible,
    (x) => x.toFixed(0),
  );
  const eligibleShare = show((x) => x.eligibleShare, percent);
  const eligible =
    eligibleCount !== undefined
      ? `${eligibleCount} (${eligibleShare ?? '?'}${r.providerCount ? ` of ${r.providerCount}` : ''})`
      : '';
  const two = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
  const cpu = r.cpu
    ? (['service', 'postgres', 'redis', 'generator'] as const)
        .map((k) => show((x) => x.cpu?.[k], two) ?? 'n/a')
        .join(' / ')
    : '';
  const rss =
    show(
      (x) => x.rssMb,
      (x) => `${x.toFixed(0)} MB`,
    ) ?? '';
  return [r.group, r.label, rateTime, latency, vsRaw, eligible, cpu, rss, r.answers ?? ''];
}

/** Renders one run's rows as the bench table. */
export function renderReport(rows: readonly BenchRow[]): string {
  return renderTable(
    REPORT_HEADER,
    rows.map((r) => rowCells([r])),
  );
}
