import type { z } from 'zod';
import type { WaitlistEntry as WaitlistEntrySchema } from '../../contract/schemas/care.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { statusBadge, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';

/** A waitlist entry as the API answers it. */
type WaitlistEntry = z.infer<typeof WaitlistEntrySchema>;

/** An entry's offer: the slot, its provider and when the offer ends, linked to its resolution and hold. */
function offerCell(e: WaitlistEntry): Node | string {
  const o = e.offer;
  if (!o) return '—';
  return h(
    'dl',
    { class: 'offer' },
    h('dt', {}, 'Slot'),
    h('dd', {}, timeCell(o.slotStart)),
    h('dt', {}, 'Provider'),
    h('dd', {}, h('code', { class: 'small' }, o.providerId)),
    h('dt', {}, e.status === 'offered' ? 'Expires' : 'Offer ended'),
    h('dd', {}, timeCell(o.expiresAt)),
    h('dt', {}, 'Resolution'),
    h(
      'dd',
      {},
      h('a', { href: `/console/resolutions/${encodeURIComponent(o.resolutionId)}`, class: 'mono' }, o.resolutionId),
    ),
    h('dt', {}, 'Hold'),
    h(
      'dd',
      {},
      h(
        'a',
        {
          href: `/console/inspector/hold/${encodeURIComponent(o.holdId)}`,
          class: 'mono',
          'aria-label': `Hold ${o.holdId} in the inspector`,
        },
        o.holdId,
      ),
    ),
  );
}

/**
 * The organization's waitlist, oldest first (the order offers go in), filtered by status: each entry's offer (slot,
 * provider, when it ends), how many offers it was made, and a link to its actor in the inspector.
 */
export const waitlistPage: Page = {
  path: '/console/waitlist',
  title: 'Waitlist',
  nav: 'Waitlist',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const table = pagedTable<WaitlistEntry>({
      caption: 'Waitlist entries, oldest first',
      empty: 'No entry matches this filter.',
      load: (cursor) =>
        api.get<ListPage<WaitlistEntry>>(
          '/api/v2/waitlist',
          { ...queryValues(ctx.query, ['status']), limit: 50, cursor },
          signal,
        ),
      columns: [
        { header: 'Entry', cell: (e) => [h('div', {}, e.customer.name), h('code', { class: 'small' }, e.id)] },
        { header: 'Status', cell: (e) => statusBadge(e.status) },
        { header: 'Offer', cell: offerCell },
        { header: 'Offers made', cell: (e) => String(e.offersMade) },
        { header: 'Created', cell: (e) => timeCell(e.createdAt) },
        {
          header: 'Actor',
          cell: (e) =>
            h(
              'a',
              {
                href: `/console/inspector/waitlist_entry/${encodeURIComponent(e.id)}`,
                'aria-label': `Actor of waitlist entry ${e.id} in the inspector`,
              },
              'Inspector',
            ),
        },
      ],
    });
    const form = filterForm(
      'Waitlist filters',
      [
        formField(
          'Status',
          selectOf(
            'status',
            [['', 'Any'], ...['waiting', 'offered', 'booked', 'cancelled'].map((s): [string, string] => [s, s])],
            ctx.query.get('status') ?? '',
          ),
        ),
      ],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Waitlist'),
      h(
        'p',
        {},
        'Time that frees (a cancellation, a hold that ends, a schedule widened) is offered to the oldest waiting entry that admits it: a resolution and a hold, confirmed through the usual confirm.',
      ),
      form,
      table.element,
    );
  },
};
