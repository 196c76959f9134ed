import type { z } from 'zod';
import type { Service as ServiceSchema } from '../../contract/schemas/service.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField } from '../ui/form-field.js';
import { timeCell } from '../ui/format.js';
import { pagedTable, type ListPage, type PagedTable } from '../ui/paged-table.js';
import { providerPicker } from './provider-picker.js';
import { removeServiceAction } from './remove-service-action.js';

/** A service (session type) as the API answers it. */
export type Service = z.infer<typeof ServiceSchema>;

/** A price in the smallest unit as money: `12000 USD` reads `USD 120.00`. */
export function priceText(s: Service): string {
  if (s.price === null) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: s.currency ?? 'USD' }).format(s.price / 100);
  } catch {
    return `${s.price} ${s.currency ?? ''}`;
  }
}

/** The organization's services, filtered by provider in the URL, each with edit and remove actions, and a link to add one. */
export const servicesPage: Page = {
  path: '/console/services',
  title: 'Services',
  nav: 'Services',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const table: PagedTable = pagedTable<Service>({
      caption: 'Services',
      empty: 'No service matches this filter.',
      load: (cursor) =>
        api.get<ListPage<Service>>(
          '/api/v2/services',
          { ...queryValues(ctx.query, ['providerId']), limit: 50, cursor },
          signal,
        ),
      columns: [
        {
          header: 'Service',
          cell: (s) => [
            h('a', { href: `/console/services/${encodeURIComponent(s.id)}` }, s.title),
            h('div', {}, h('code', { class: 'small' }, s.id)),
          ],
        },
        {
          header: 'Provider',
          cell: (s) =>
            h('a', { href: `/console/providers/${encodeURIComponent(s.providerId)}`, class: 'mono' }, s.providerId),
        },
        { header: 'Duration', numeric: true, cell: (s) => `${s.duration} min` },
        { header: 'Price', numeric: true, cell: priceText },
        { header: 'Modality', cell: (s) => s.modality ?? '—' },
        { header: 'Created', cell: (s) => timeCell(s.createdAt) },
        {
          header: 'Actions',
          cell: (s) =>
            h(
              'div',
              { class: 'row-actions' },
              h(
                'a',
                { href: `/console/services/${encodeURIComponent(s.id)}` },
                'Edit',
                h('span', { class: 'visually-hidden' }, ` ${s.title}`),
              ),
              removeServiceAction(api, s, () => table.reload()),
            ),
        },
      ],
    });
    const providerId = ctx.query.get('providerId');
    const form = filterForm(
      'Service filters',
      [formField('Provider', await providerPicker(api, signal, providerId, { anyLabel: 'Any' }))],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    const add = `/console/services/new${providerId ? `?providerId=${encodeURIComponent(providerId)}` : ''}`;
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Services'),
      h(
        'p',
        {},
        'Session types of each provider: length, price, slot interval, notice and buffers. ',
        h('a', { href: add }, 'New service'),
      ),
      form,
      table.element,
    );
  },
};
