import type { z } from 'zod';
import type { ResolutionSummary as ResolutionSummarySchema } from '../../contract/schemas/resolution.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { formField } from '../ui/form-field.js';
import { idLink, statusBadge, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';

/** A resolution as GET /api/v2/resolutions lists it. */
type ResolutionSummary = z.infer<typeof ResolutionSummarySchema>;

/** Recent resolutions, newest first, and a form to open one by id. */
export const resolutionsPage: Page = {
  path: '/console/resolutions',
  title: 'Resolutions',
  nav: 'Resolutions',
  needsOrganization: true,
  async render({ api, signal, navigate }) {
    const id = h('input', {
      type: 'text',
      name: 'id',
      required: true,
      autocomplete: 'off',
      spellcheck: 'false',
      class: 'mono',
    });
    const open = h(
      'form',
      { class: 'filters', 'aria-label': 'Open a resolution' },
      formField('Resolution id', id, 'res_…'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open')),
    );
    open.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = id.value.trim();
      if (value) navigate(`/console/resolutions/${encodeURIComponent(value)}`);
    });
    const table = pagedTable<ResolutionSummary>({
      caption: 'Recent resolutions, newest first',
      empty: 'No resolutions yet.',
      load: (cursor) => api.get<ListPage<ResolutionSummary>>('/api/v2/resolutions', { limit: 20, cursor }, signal),
      columns: [
        { header: 'Resolution', cell: (r) => idLink(r.id, `/console/resolutions/${encodeURIComponent(r.id)}`) },
        { header: 'Status', cell: (r) => statusBadge(r.status) },
        { header: 'Service', cell: (r) => r.serviceSlug },
        { header: 'Options', numeric: true, cell: (r) => r.optionsReturned },
        { header: 'Slots evaluated', numeric: true, cell: (r) => r.evaluatedSlots },
        { header: 'Providers', numeric: true, cell: (r) => r.providersScanned },
        {
          header: 'Booking',
          cell: (r) =>
            r.bookingId ? idLink(r.bookingId, `/console/bookings/${encodeURIComponent(r.bookingId)}`) : '—',
        },
        { header: 'Created', cell: (r) => timeCell(r.createdAt) },
        { header: 'Expires', cell: (r) => timeCell(r.expiresAt) },
      ],
    });
    await table.reload();
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Resolutions'),
      open,
      h('h2', {}, 'Recent resolutions'),
      table.element,
    );
  },
};
