import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { statusBadge, timeCell, valuesText } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';
import { licenceText } from './licence-text.js';
import type { Provider } from './provider-form.js';

const FILTERS = ['status', 'externalId', 'languageCodes', 'searchable'];

/** The organization's providers with their codes and licences, filtered in the URL; a link to add one. */
export const providersPage: Page = {
  path: '/console/providers',
  title: 'Providers',
  nav: 'Providers',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const current = queryValues(ctx.query, FILTERS);
    const table = pagedTable<Provider>({
      caption: 'Providers',
      empty: 'No provider matches these filters.',
      load: (cursor) =>
        api.get<ListPage<Provider>>(
          '/api/v2/providers',
          { ...queryValues(ctx.query, FILTERS), limit: 50, cursor },
          signal,
        ),
      columns: [
        {
          header: 'Provider',
          cell: (p) => [
            h('a', { href: `/console/providers/${encodeURIComponent(p.id)}` }, p.displayName),
            h('div', {}, h('code', { class: 'small' }, p.id)),
          ],
        },
        { header: 'External id', cell: (p) => h('code', {}, p.externalId) },
        { header: 'Status', cell: (p) => [statusBadge(p.status), p.searchable ? '' : ' not searchable'] },
        { header: 'Languages', cell: (p) => valuesText(p.languageCodes) },
        {
          header: 'Licences',
          cell: (p) =>
            p.licenseRecords.length === 0
              ? 'none'
              : h(
                  'ul',
                  { class: 'plain compact' },
                  p.licenseRecords.map((l) => h('li', {}, licenceText(l))),
                ),
        },
        { header: 'Updated', cell: (p) => timeCell(p.updatedAt) },
      ],
    });
    const text = (name: string) =>
      h('input', {
        type: 'text',
        name,
        value: current[name] ?? '',
        autocomplete: 'off',
        spellcheck: 'false',
      });
    const form = filterForm(
      'Provider filters',
      [
        formField(
          'Status',
          selectOf(
            'status',
            [['', 'Any'], ...['active', 'inactive', 'suspended'].map((s): [string, string] => [s, s])],
            current.status,
          ),
        ),
        formField(
          'Searchable',
          selectOf(
            'searchable',
            [
              ['', 'Any'],
              ['true', 'Yes'],
              ['false', 'No'],
            ],
            current.searchable,
          ),
        ),
        formField('External id', text('externalId')),
        formField('Language', text('languageCodes'), 'e.g. es'),
      ],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    const platform = ctx.caller.keyType.startsWith('platform');
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Providers'),
      h(
        'p',
        {},
        platform
          ? h('a', { href: '/console/providers/new', class: 'button-link' }, 'New provider')
          : h(
              'span',
              { class: 'muted' },
              'Creating a provider needs a platform key; an organization key can edit one.',
            ),
        ' · ',
        h('a', { href: '/console/services' }, 'Services'),
        ' · ',
        h('a', { href: '/console/schedules' }, 'Schedules'),
      ),
      form,
      table.element,
    );
  },
};
