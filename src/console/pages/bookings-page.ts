import type { z } from 'zod';
import type { BookingV2 } from '../../contract/schemas/booking.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { idLink, slotText, statusBadge, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';

/** A booking as the v2 API answers it. */
export type Booking = z.infer<typeof BookingV2>;

const FILTERS = ['status', 'providerId'];

/** The organization's bookings, newest first, filtered by status and provider (filters kept in the URL). */
export const bookingsPage: Page = {
  path: '/console/bookings',
  title: 'Bookings',
  nav: 'Bookings',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const current = queryValues(ctx.query, FILTERS);
    const table = pagedTable<Booking>({
      caption: 'Bookings, newest first',
      empty: 'No booking matches these filters.',
      load: (cursor) =>
        api.get<ListPage<Booking>>(
          '/api/v2/bookings',
          { ...queryValues(ctx.query, FILTERS), limit: 50, cursor },
          signal,
        ),
      columns: [
        { header: 'Booking', cell: (b) => idLink(b.id, `/console/bookings/${encodeURIComponent(b.id)}`) },
        { header: 'Status', cell: (b) => statusBadge(b.status) },
        { header: 'Provider', cell: (b) => b.provider.displayName },
        { header: 'Service', cell: (b) => b.service.displayName },
        { header: 'Slot', cell: (b) => slotText(b.slot) },
        { header: 'Customer', cell: (b) => b.customer.name },
        { header: 'Source', cell: (b) => b.source },
        { header: 'Created', cell: (b) => timeCell(b.createdAt) },
      ],
    });
    const providerId = h('input', {
      type: 'text',
      name: 'providerId',
      value: current.providerId ?? '',
      autocomplete: 'off',
      spellcheck: 'false',
      class: 'mono',
    });
    const form = filterForm(
      'Booking filters',
      [
        formField(
          'Status',
          selectOf(
            'status',
            [
              ['', 'Any'],
              ...['pending', 'confirmed', 'cancelled', 'completed', 'rescheduled'].map((s): [string, string] => [s, s]),
            ],
            current.status,
          ),
        ),
        formField('Provider id', providerId),
      ],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    return h('section', {}, h('h1', { tabindex: -1 }, 'Bookings'), form, table.element);
  },
};
