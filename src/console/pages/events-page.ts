import type { z } from 'zod';
import type { Event as EventSchema } from '../../contract/schemas/event.js';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhook-vocabulary.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { idLink, jsonBlock, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';

type ServiceEvent = z.infer<typeof EventSchema>;

const FILTERS = ['type', 'mode', 'since'];
const MODES = ['live', 'test'] as const;

/** A query value if it is one of `allowed`, else empty (a hand-edited URL never reaches the API as a bad filter). */
function known(value: string | null, allowed: readonly string[]): string {
  return value && allowed.includes(value) ? value : '';
}

/** What the event is about: its booking or resolution (linked into the console), else its provider, import or hold. */
function subjectCell(e: ServiceEvent): Node | string {
  const d = e.data as Record<string, unknown>;
  const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : undefined);
  const booking = text('bookingId');
  if (booking) return idLink(booking, `/console/bookings/${encodeURIComponent(booking)}`);
  const resolution = text('resolutionId');
  if (resolution) return idLink(resolution, `/console/resolutions/${encodeURIComponent(resolution)}`);
  const other = text('providerId') ?? text('importId');
  return other ? idLink(other) : '—';
}

/** The envelope as a receiver gets it, built when the reader opens it (a page of events stays light). */
function envelopeCell(e: ServiceEvent): Node {
  const details = h('details', {}, h('summary', {}, 'Envelope'));
  details.addEventListener('toggle', () => {
    if (details.open && details.childElementCount === 1) details.append(jsonBlock(e, `Envelope of ${e.id}`));
  });
  return details;
}

/**
 * The organization's events of the last 30 days (GET /api/v2/events), newest first, filtered by type, key mode and
 * start instant (in the URL): what a webhook consumer can reconcile against, each with the envelope it is sent as.
 */
export const eventsPage: Page = {
  path: '/console/events',
  title: 'Events',
  nav: 'Events',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const current = queryValues(ctx.query, FILTERS);
    const table = pagedTable<ServiceEvent>({
      caption: 'Events of the last 30 days, newest first',
      empty: 'No event matches these filters.',
      load: (cursor) =>
        api.get<ListPage<ServiceEvent>>(
          '/api/v2/events',
          { ...queryValues(ctx.query, FILTERS), limit: 50, cursor },
          signal,
        ),
      columns: [
        { header: 'Time', cell: (e) => timeCell(e.createdAt) },
        { header: 'Type', cell: (e) => h('code', {}, e.type) },
        { header: 'Subject', cell: subjectCell },
        { header: 'Event id', cell: (e) => h('code', { class: 'small' }, e.id) },
        { header: 'Attempt', cell: (e) => String(e.attempt), numeric: true },
        { header: 'Envelope', cell: envelopeCell },
      ],
    });
    const since = h('input', {
      type: 'text',
      name: 'since',
      value: current.since ?? '',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const form = filterForm(
      'Event filters',
      [
        formField(
          'Type',
          selectOf(
            'type',
            [['', 'Any type'], ...WEBHOOK_EVENT_TYPES.map((t): [string, string] => [t, t])],
            known(ctx.query.get('type'), WEBHOOK_EVENT_TYPES),
          ),
        ),
        formField(
          'Key mode',
          selectOf(
            'mode',
            [['', 'Live and test'], ...MODES.map((m): [string, string] => [m, m])],
            known(ctx.query.get('mode'), MODES),
          ),
        ),
        formField('Since', since, 'An instant such as 2026-03-02T09:00:00Z'),
      ],
      reloadWithFilters(ctx, table),
    );
    await table.reload();
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Events'),
      h(
        'p',
        { class: 'muted' },
        'Every event of the last 30 days, each exactly the envelope its webhook deliveries carry. A consumer that missed deliveries reads this list and skips the ids it has seen. Webhooks send live events only.',
      ),
      form,
      table.element,
    );
  },
};
