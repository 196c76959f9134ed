import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { REPORT_HEADER, rowCells, type BenchRow, type FigureFormat } from './bench-report.js';
import { formatFigure, type TargetCheck } from './bench-targets.js';
import { perSec, renderTable } from './report-table.js';

/**
 * `npm run bench:summary -- bench-results/a.json bench-results/b.json ...`: the table of `npm run bench` over several
 * runs, each figure as `min-max` over the files (one value when all print alike), then each target with how many
 * runs met it and the spread of its figure. Rows and targets are matched by id; a row missing from some runs says so.
 */
interface ResultsFile {
  startedAt: string;
  machine: { cpuCount: number; cpuModel: string; loadAverage: number[]; loadAverageEnd?: number[] };
  config: Record<string, unknown>;
  rows?: BenchRow[];
  targets?: TargetCheck[];
  rawAtEnd?: { concurrency: number; perSecond: number }[];
}

const files = process.argv.slice(2).filter((a) => a !== '--');
if (files.length === 0) {
  console.error('usage: npm run bench:summary -- <bench-results/*.json files of `npm run bench`>');
  process.exit(2);
}
const runs = files.map((f) => {
  const r = JSON.parse(readFileSync(f, 'utf8')) as ResultsFile;
  if (!r.rows || !r.targets)
    throw new Error(`${f} has no rows or targets: it was written by an older bench (rerun npm run bench)`);
  return { file: basename(f), ...r };
});

/** `min-max` of the values as formatted, or the one value when the lowest and highest print alike. */
const spread: FigureFormat = (values, format) => {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return format(Number.NaN);
  const lo = format(Math.min(...finite));
  const hi = format(Math.max(...finite));
  if (lo === hi) return lo;
  // `143-157/s`, `0.83-0.91%`, `98.2-134.0 ms`: one unit when both carry the same.
  const [, loNumber, loUnit] = /^([\d.]+)(.*)$/.exec(lo) ?? [];
  const [, hiNumber, hiUnit] = /^([\d.]+)(.*)$/.exec(hi) ?? [];
  return loNumber !== undefined && loUnit === hiUnit ? `${loNumber}-${hiNumber}${hiUnit}` : `${lo} - ${hi}`;
};

console.log(`${runs.length} runs of npm run bench:`);
for (const r of runs) {
  const raw8 = r.rows!.find((x) => x.id === 'raw.c8');
  const load = (l: number[] | undefined) => (l ? l.map((x) => x.toFixed(1)).join('/') : '?');
  console.log(
    `  ${r.file}: ${r.machine.cpuCount} x ${r.machine.cpuModel}; load ${load(r.machine.loadAverage)} -> ${load(r.machine.loadAverageEnd)}; raw@8 ${raw8?.rate !== undefined ? perSec(raw8.rate) : '?'} (end ${r.rawAtEnd?.[0] ? perSec(r.rawAtEnd[0].perSecond) : '?'}); config ${JSON.stringify(r.config)}`,
  );
}

// Rows in the order of the first run that has them, then those only later runs have.
const order: string[] = [];
for (const r of runs) for (const row of r.rows!) if (!order.includes(row.id)) order.push(row.id);
const table = order.map((id) => {
  const found = runs.map((r) => r.rows!.find((x) => x.id === id)).filter((x): x is BenchRow => x !== undefined);
  const cells = rowCells(found, spread);
  // The answers column is one run's text: the summary says whose, and how many runs had the row.
  cells[8] = found.length < runs.length ? `(in ${found.length} of ${runs.length} runs) ${cells[8]}` : cells[8]!;
  return cells;
});
console.log('');
console.log(renderTable([...REPORT_HEADER.slice(0, 8), 'answers (first run)'], table));
console.log('');

const targetIds: string[] = [];
for (const r of runs) for (const t of r.targets!) if (!targetIds.includes(t.id)) targetIds.push(t.id);
for (const id of targetIds) {
  const found = runs.map((r) => r.targets!.find((t) => t.id === id)).filter((t): t is TargetCheck => t !== undefined);
  const first = found[0]!;
  const judged = found.filter((t) => t.met !== undefined);
  const met = judged.filter((t) => t.met).length;
  const verdict =
    judged.length === 0 ? 'n/a      ' : `${met === judged.length ? 'met   ' : 'MISSED'} ${met}/${judged.length}`;
  console.log(
    `${verdict}  [${first.issue}] ${first.target}: ${spread(
      found.map((t) => t.value),
      (x) => formatFigure(x, first.kind),
    )}`,
  );
}
