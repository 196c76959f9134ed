import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField } from '../ui/form-field.js';
import { timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';
import { providerPicker } from './provider-picker.js';
import { weekText, type Schedule } from './schedule-form.js';

/**
 * The organization's schedules: the API's calendar connections (weekly hours, date overrides and an optional ICS feed
 * whose events are busy), filtered by provider in the URL, with a link to add one.
 */
export const schedulesPage: Page = {
  path: '/console/schedules',
  title: 'Schedules',
  nav: 'Schedules',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const table = pagedTable<Schedule>({
      caption: 'Schedules (calendar connections)',
      empty: 'No schedule matches this filter.',
      load: (cursor) =>
        api.get<ListPage<Schedule>>(
          '/api/v2/calendar-connections',
          { ...queryValues(ctx.query, ['providerId']), limit: 50, cursor },
          signal,
        ),
      columns: [
        {
          header: 'Schedule',
          cell: (c) => [
            h('a', { href: `/console/schedules/${encodeURIComponent(c.id)}` }, c.title ?? 'Untitled schedule'),
            h('div', {}, h('code', { class: 'small' }, c.id)),
          ],
        },
        {
          header: 'Provider',
          cell: (c) =>
            h('a', { href: `/console/providers/${encodeURIComponent(c.providerId)}`, class: 'mono' }, c.providerId),
        },
        { header: 'Time zone', cell: (c) => c.timezone },
        { header: 'Week', cell: (c) => weekText(c.days) },
        { header: 'Overrides', numeric: true, cell: (c) => String(c.overrides.length) },
        {
          header: 'Calendar feed',
          cell: (c) => (c.externalCalendar ? h('span', { class: 'wrap-anywhere' }, c.externalCalendar.url) : '—'),
        },
        { header: 'Updated', cell: (c) => timeCell(c.updatedAt) },
      ],
    });
    const providerId = ctx.query.get('providerId');
    const form = filterForm(
      'Schedule filters',
      [formField('Provider', await providerPicker(api, signal, providerId, { anyLabel: 'Any' }))],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    const add = `/console/schedules/new${providerId ? `?providerId=${encodeURIComponent(providerId)}` : ''}`;
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Schedules'),
      h(
        'p',
        {},
        'Weekly availability of each provider (the API calls them calendar connections), with date overrides and an optional ICS calendar feed whose events count as busy. ',
        h('a', { href: add }, 'New schedule'),
      ),
      form,
      table.element,
    );
  },
};
