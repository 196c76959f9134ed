import type { z } from 'zod';
import type { Delivery as DeliverySchema, DeliveryList as DeliveryListSchema } from '../../contract/schemas/webhook.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../contract/webhook-vocabulary.js';
import type { PageContext } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { dataTable } from '../ui/data-table.js';
import { errorNotice } from '../ui/error-notice.js';
import { formField, selectOf } from '../ui/form-field.js';
import { idLink, statusBadge, timeCell } from '../ui/format.js';
import { loadMore } from '../ui/pager.js';

/** One delivery record as `GET /api/v2/webhooks/deliveries` lists it. */
export type Delivery = z.infer<typeof DeliverySchema>;
type DeliveryList = z.infer<typeof DeliveryListSchema>;

/** A query value if it is one of `allowed`, else empty (a hand-edited URL never reaches the API as a bad filter). */
function known(value: string | null, allowed: readonly string[]): string {
  return value && allowed.includes(value) ? value : '';
}

/**
 * The delivery log of the organization's webhook: filters by status and event type kept in the URL query, the
 * total of matches, newest first, "Load more" paging, and a Refresh button. Resolves once the first page is shown.
 */
export async function deliveryLog(ctx: PageContext): Promise<HTMLElement> {
  const { api, signal } = ctx;
  const status = selectOf(
    'status',
    [['', 'Any status'], ...DELIVERY_STATUSES.map((s): [string, string] => [s, s])],
    known(ctx.query.get('status'), DELIVERY_STATUSES),
  );
  const event = selectOf(
    'event',
    [['', 'Any event'], ...WEBHOOK_EVENT_TYPES.map((e): [string, string] => [e, e])],
    known(ctx.query.get('event'), WEBHOOK_EVENT_TYPES),
  );
  const results = h('div', { 'aria-live': 'polite' });
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Delivery filters' },
    formField('Status', status),
    formField('Event', event),
    h('button', { type: 'submit' }, 'Apply'),
    refresh,
  );

  const load = async () => {
    const query = { status: status.value, event: event.value, limit: 50 };
    try {
      const first = await api.get<DeliveryList>('/api/v2/webhooks/deliveries', query, signal);
      const rows = [...first.deliveries];
      const tableSlot = h('div', {});
      const draw = () =>
        replaceChildren(
          tableSlot,
          dataTable<Delivery>(
            'Webhook deliveries, newest first',
            [
              {
                header: 'Delivery',
                cell: (d) => idLink(d.id, `/console/webhooks/deliveries/${encodeURIComponent(d.id)}`),
              },
              { header: 'Event', cell: (d) => d.event },
              { header: 'Status', cell: (d) => statusBadge(d.status) },
              { header: 'Attempt', cell: (d) => String(d.attempt), numeric: true },
              { header: 'Response', cell: (d) => (d.statusCode === null ? '—' : String(d.statusCode)), numeric: true },
              { header: 'Latency', cell: (d) => (d.latencyMs === null ? '—' : `${d.latencyMs} ms`), numeric: true },
              { header: 'Time', cell: (d) => timeCell(d.timestamp) },
              { header: 'Next attempt', cell: (d) => timeCell(d.nextAttemptAt) },
            ],
            rows,
            'No deliveries match.',
          ),
        );
      draw();
      const more = loadMore(
        { hasMore: first.nextCursor !== null, nextCursor: first.nextCursor },
        async (cursor) => {
          const next = await api.get<DeliveryList>('/api/v2/webhooks/deliveries', { ...query, cursor }, signal);
          return { data: next.deliveries, hasMore: next.nextCursor !== null, nextCursor: next.nextCursor };
        },
        (page) => {
          rows.push(...page);
          draw();
        },
      );
      replaceChildren(
        results,
        h(
          'p',
          { class: 'total' },
          `${first.total.toLocaleString()} ${first.total === 1 ? 'delivery' : 'deliveries'} match.`,
        ),
        tableSlot,
        more,
      );
    } catch (err) {
      if (!signal.aborted) replaceChildren(results, errorNotice(err));
    }
  };

  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams(location.search);
    for (const [name, value] of [
      ['status', status.value],
      ['event', event.value],
    ] as const) {
      if (value) q.set(name, value);
      else q.delete(name);
    }
    ctx.setQuery(q);
    void load();
  });
  refresh.addEventListener('click', () => void load());
  await load();
  return h(
    'section',
    { 'aria-labelledby': 'delivery-log-title' },
    h('h2', { id: 'delivery-log-title' }, 'Delivery log'),
    filters,
    results,
  );
}
