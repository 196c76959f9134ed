import type { ChartType } from 'chart.js';
import { dataTable } from './data-table.js';
import { h } from './dom.js';

/** One series of a chart: its name and one value per label. */
export interface ChartSeries {
  label: string;
  values: number[];
}

/** Colours with at least 3:1 contrast against white, in a fixed order. */
const PALETTE = ['#0a58ca', '#b3261e', '#116329', '#7a4d00', '#6f42c1', '#57606a'];

/**
 * A chart in a `<figure>`: a caption, a canvas with an aria-label that states the figures, and the same data as a
 * table in a `<details>` for anyone who cannot see the canvas. Chart.js loads as its own chunk on first use; the
 * chart is destroyed when `signal` aborts (the reader left the page).
 */
export async function chartFigure(opts: {
  title: string;
  type: Extract<ChartType, 'bar' | 'doughnut'>;
  labels: string[];
  series: ChartSeries[];
  labelHeader?: string;
  signal: AbortSignal;
  format?: (n: number) => string;
}): Promise<HTMLElement> {
  const format = opts.format ?? ((n: number) => n.toLocaleString());
  const description = opts.series
    .map(
      (s) =>
        `${opts.series.length > 1 ? `${s.label}: ` : ''}${opts.labels.map((l, i) => `${l} ${format(s.values[i] ?? 0)}`).join(', ')}`,
    )
    .join('; ');
  const canvas = h('canvas', { role: 'img', 'aria-label': `${opts.title}. ${description}.` });
  const figure = h(
    'figure',
    { class: 'chart-figure' },
    h('figcaption', {}, opts.title),
    h('div', { class: 'chart' }, canvas),
    h(
      'details',
      {},
      h('summary', {}, `Data of “${opts.title}” as a table`),
      dataTable(
        opts.title,
        [
          { header: opts.labelHeader ?? 'Category', cell: (i: number) => opts.labels[i] ?? '' },
          ...opts.series.map((s) => ({
            header: s.label,
            numeric: true,
            cell: (i: number) => format(s.values[i] ?? 0),
          })),
        ],
        opts.labels.map((_, i) => i),
      ),
    ),
  );
  const { default: Chart } = await import('chart.js/auto');
  if (opts.signal.aborted) return figure;
  const doughnut = opts.type === 'doughnut';
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const chart = new Chart(canvas, {
    type: opts.type,
    data: {
      labels: opts.labels,
      datasets: opts.series.map((s, i) => ({
        label: s.label,
        data: s.values,
        backgroundColor: doughnut
          ? opts.labels.map((_, j) => PALETTE[j % PALETTE.length]!)
          : PALETTE[i % PALETTE.length]!,
        borderColor: '#ffffff',
      })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: reduceMotion ? false : { duration: 250 },
      color: '#1b1f24',
      plugins: { legend: { display: doughnut || opts.series.length > 1, position: 'bottom' } },
      ...(doughnut
        ? {}
        : {
            scales: {
              y: { beginAtZero: true, ticks: { precision: 0, color: '#1b1f24' } },
              x: { ticks: { color: '#1b1f24' } },
            },
          }),
    },
  });
  opts.signal.addEventListener('abort', () => chart.destroy(), { once: true });
  return figure;
}
