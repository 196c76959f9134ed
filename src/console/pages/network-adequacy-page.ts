import type { z } from 'zod';
import type { NetworkAdequacy as NetworkAdequacySchema } from '../../contract/schemas/analytics.js';
import type { Page } from '../page.js';
import { chartFigure } from '../ui/chart-figure.js';
import { h } from '../ui/dom.js';
import { filterForm } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';

type NetworkAdequacy = z.infer<typeof NetworkAdequacySchema>;
type Row = NetworkAdequacy['rows'][number];

const DIMENSIONS: [value: string, label: string][] = [
  ['language', 'Language'],
  ['license_region', 'Licence region'],
  ['insurance', 'Insurance plan'],
  ['specialty', 'Specialty'],
  ['modality', 'Modality'],
];
const PERIODS: [value: string, label: string][] = [
  ['last_7_days', 'Last 7 days'],
  ['last_30_days', 'Last 30 days'],
  ['last_90_days', 'Last 90 days'],
];

const percent = (rate: number) => `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;
const days = (d: number | null) => (d === null ? '—' : d.toLocaleString(undefined, { maximumFractionDigits: 2 }));

/** The table's columns: header, the row's sort key and how its cell reads. */
const COLUMNS: {
  key: string;
  header: string;
  numeric: boolean;
  sortBy(r: Row): number | string;
  cell(r: Row): string;
}[] = [
  { key: 'value', header: 'Value', numeric: false, sortBy: (r) => r.value, cell: (r) => r.value },
  {
    key: 'resolutions',
    header: 'Resolutions',
    numeric: true,
    sortBy: (r) => r.resolutions,
    cell: (r) => r.resolutions.toLocaleString(),
  },
  {
    key: 'zeroResultRate',
    header: 'Zero results',
    numeric: true,
    sortBy: (r) => r.zeroResultRate,
    cell: (r) => percent(r.zeroResultRate),
  },
  {
    key: 'providers',
    header: 'Providers',
    numeric: true,
    sortBy: (r) => r.providers,
    cell: (r) => r.providers.toLocaleString(),
  },
  {
    key: 'acceptingNewClients',
    header: 'Accepting new clients',
    numeric: true,
    sortBy: (r) => r.acceptingNewClients,
    cell: (r) => r.acceptingNewClients.toLocaleString(),
  },
  {
    key: 'medianDaysToFirstOption',
    header: 'Median days to first option',
    numeric: true,
    sortBy: (r) => r.medianDaysToFirstOption ?? Number.POSITIVE_INFINITY,
    cell: (r) => days(r.medianDaysToFirstOption),
  },
  {
    key: 'p90DaysToFirstOption',
    header: 'p90 days to first option',
    numeric: true,
    sortBy: (r) => r.p90DaysToFirstOption ?? Number.POSITIVE_INFINITY,
    cell: (r) => days(r.p90DaysToFirstOption),
  },
  {
    key: 'topExclusionCodes',
    header: 'Top exclusion codes',
    numeric: false,
    sortBy: (r) => r.topExclusionCodes[0]?.code ?? '',
    cell: (r) => r.topExclusionCodes.map((c) => `${c.code} ${c.count.toLocaleString()}`).join(', ') || '—',
  },
];

/** Rows sorted by a column, ties by value. */
function sortRows(rows: Row[], key: string, order: 'asc' | 'desc'): Row[] {
  const col = COLUMNS.find((c) => c.key === key) ?? COLUMNS[1]!;
  const sign = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = col.sortBy(a);
    const y = col.sortBy(b);
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return c !== 0 ? sign * c : a.value.localeCompare(b.value);
  });
}

/**
 * Where the network is thin: per value of a dimension that clients asked for, bars of providers against demand and of
 * the zero-result rate, and a table sorted by any column (its header's button; the order stays in the URL).
 */
export const networkAdequacyPage: Page = {
  path: '/console/network-adequacy',
  title: 'Network adequacy',
  nav: 'Network adequacy',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal, query } = ctx;
    const pick = (name: string, options: [string, string][], fallback: string) => {
      const v = query.get(name);
      return options.some(([o]) => o === v) ? v! : fallback;
    };
    const dimension = pick('dimension', DIMENSIONS, 'language');
    const period = pick('period', PERIODS, 'last_30_days');
    const sort = COLUMNS.some((c) => c.key === query.get('sort')) ? query.get('sort')! : 'resolutions';
    const order = query.get('order') === 'asc' ? 'asc' : 'desc';
    const a = await api.get<NetworkAdequacy>('/api/v2/analytics/network-adequacy', { dimension, period }, signal);
    const dimensionLabel = DIMENSIONS.find(([v]) => v === dimension)![1];
    const periodLabel = PERIODS.find(([v]) => v === period)![1];
    const go = (q: URLSearchParams) => ctx.navigate(`/console/network-adequacy${q.toString() ? `?${q}` : ''}`);
    const form = filterForm(
      'Network adequacy',
      [
        formField('Dimension', selectOf('dimension', DIMENSIONS, dimension)),
        formField('Period', selectOf('period', PERIODS, period)),
      ],
      go,
    );
    const rows = sortRows(a.rows, sort, order);
    const sortButton = (key: string, header: string) => {
      const next = sort === key && order === 'desc' ? 'asc' : 'desc';
      const button = h('button', { type: 'button', class: 'sort' }, header);
      button.addEventListener('click', () => go(new URLSearchParams({ dimension, period, sort: key, order: next })));
      return button;
    };
    const table =
      rows.length === 0
        ? h('p', { class: 'empty' }, `No resolution of the period named a ${dimensionLabel.toLowerCase()}.`)
        : h(
            'div',
            {
              class: 'table-wrap',
              tabindex: 0,
              role: 'region',
              'aria-label': `Network adequacy by ${dimensionLabel.toLowerCase()}`,
            },
            h(
              'table',
              { class: 'sortable' },
              h(
                'caption',
                { class: 'visually-hidden' },
                `Network adequacy by ${dimensionLabel.toLowerCase()}, ${periodLabel.toLowerCase()}; sorted by ${COLUMNS.find((c) => c.key === sort)!.header.toLowerCase()}, ${order === 'asc' ? 'ascending' : 'descending'}`,
              ),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  COLUMNS.map((c) =>
                    h(
                      'th',
                      {
                        scope: 'col',
                        class: c.numeric ? 'num' : undefined,
                        'aria-sort': c.key === sort ? (order === 'asc' ? 'ascending' : 'descending') : 'none',
                      },
                      sortButton(c.key, c.header),
                    ),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                rows.map((r) =>
                  h(
                    'tr',
                    {},
                    COLUMNS.map((c) => h('td', { class: c.numeric ? 'num' : undefined }, c.cell(r))),
                  ),
                ),
              ),
            ),
          );
    const charts =
      rows.length === 0
        ? []
        : await Promise.all([
            chartFigure({
              title: `Providers and resolutions per ${dimensionLabel.toLowerCase()}, ${periodLabel.toLowerCase()}`,
              type: 'bar',
              labels: a.rows.map((r) => r.value),
              series: [
                { label: 'Resolutions', values: a.rows.map((r) => r.resolutions) },
                { label: 'Providers', values: a.rows.map((r) => r.providers) },
                { label: 'Accepting new clients', values: a.rows.map((r) => r.acceptingNewClients) },
              ],
              labelHeader: dimensionLabel,
              signal,
            }),
            chartFigure({
              title: `Zero-result rate per ${dimensionLabel.toLowerCase()}, ${periodLabel.toLowerCase()}`,
              type: 'bar',
              labels: a.rows.map((r) => r.value),
              series: [
                { label: 'Zero results (%)', values: a.rows.map((r) => Math.round(r.zeroResultRate * 10000) / 100) },
              ],
              labelHeader: dimensionLabel,
              format: (n) => `${n.toLocaleString()} %`,
              signal,
            }),
          ]);
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Network adequacy'),
      form,
      h('h2', {}, `By ${dimensionLabel.toLowerCase()}, ${periodLabel.toLowerCase()}`),
      h(
        'p',
        { class: 'muted small' },
        'For each value the period’s resolutions asked for: the providers who have it now, how often asking ended with zero results, the median and p90 days to the first option (within 2.5%), and the exclusion codes that cut most.',
      ),
      table,
      h('div', { class: 'charts' }, charts),
    );
  },
};
