import type { z } from 'zod';
import type { Analytics as AnalyticsSchema } from '../../contract/schemas/analytics.js';
import type { Page } from '../page.js';
import { chartFigure } from '../ui/chart-figure.js';
import { h } from '../ui/dom.js';
import { filterForm } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';

type Analytics = z.infer<typeof AnalyticsSchema>;

/** The API's periods and how the page names them. */
const PERIODS: [value: string, label: string][] = [
  ['last_7_days', 'Last 7 days'],
  ['last_30_days', 'Last 30 days'],
  ['last_90_days', 'Last 90 days'],
];
const DEFAULT_PERIOD = 'last_30_days';

const percent = (rate: number) => `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;

function fact(label: string, value: string): HTMLElement {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

/** Resolution and booking metrics of one period as figures and charts, and the three periods side by side. */
export const analyticsPage: Page = {
  path: '/console/analytics',
  title: 'Analytics',
  nav: 'Analytics',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const requested = ctx.query.get('period') ?? DEFAULT_PERIOD;
    const period = PERIODS.some(([v]) => v === requested) ? requested : DEFAULT_PERIOD;
    const all = await Promise.all(PERIODS.map(([v]) => api.get<Analytics>('/api/v2/analytics', { period: v }, signal)));
    const a = all[PERIODS.findIndex(([v]) => v === period)]!;
    const label = PERIODS.find(([v]) => v === period)![1];
    const otherBookings = Math.max(
      0,
      a.bookings.total - a.bookings.confirmed - a.bookings.cancelled - a.bookings.rescheduled,
    );
    const form = filterForm('Analytics period', [formField('Period', selectOf('period', PERIODS, period))], (q) => {
      ctx.navigate(`/console/analytics${q.toString() ? `?${q}` : ''}`);
    });
    const charts = await Promise.all([
      chartFigure({
        title: `Resolutions by outcome, ${label.toLowerCase()}`,
        type: 'doughnut',
        labels: ['Resolved', 'Zero results'],
        series: [{ label: 'Resolutions', values: [a.resolutions.resolved, a.resolutions.zeroResults] }],
        labelHeader: 'Outcome',
        signal,
      }),
      chartFigure({
        title: `Bookings by status, ${label.toLowerCase()}`,
        type: 'bar',
        labels: ['Confirmed or completed', 'Cancelled', 'Rescheduled', 'Other (pending)'],
        series: [
          {
            label: 'Bookings',
            values: [a.bookings.confirmed, a.bookings.cancelled, a.bookings.rescheduled, otherBookings],
          },
        ],
        labelHeader: 'Status',
        signal,
      }),
      chartFigure({
        title: 'Resolutions and bookings by period',
        type: 'bar',
        labels: PERIODS.map(([, l]) => l),
        series: [
          { label: 'Resolutions', values: all.map((x) => x.resolutions.total) },
          { label: 'Bookings', values: all.map((x) => x.bookings.total) },
        ],
        labelHeader: 'Period',
        signal,
      }),
    ]);
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Analytics'),
      form,
      h('h2', {}, label),
      h(
        'dl',
        { class: 'counts' },
        fact('Resolutions', a.resolutions.total.toLocaleString()),
        fact('Resolved', a.resolutions.resolved.toLocaleString()),
        fact('Zero results', a.resolutions.zeroResults.toLocaleString()),
        fact('Slots evaluated per resolution', a.resolutions.avgEvaluatedSlots.toLocaleString()),
        fact('Bookings', a.bookings.total.toLocaleString()),
        fact('Confirmed or completed', a.bookings.confirmed.toLocaleString()),
        fact('Cancelled', a.bookings.cancelled.toLocaleString()),
        fact('Rescheduled', a.bookings.rescheduled.toLocaleString()),
        fact('Conversion rate', percent(a.conversionRate)),
      ),
      h(
        'p',
        { class: 'muted small' },
        'Conversion rate: resolutions of the period that led to a booking, of all its resolutions. By period: ',
        all.map((x, i) => `${PERIODS[i]![1]} ${percent(x.conversionRate)}`).join(' · '),
        '.',
      ),
      h('div', { class: 'charts' }, charts),
    );
  },
};
