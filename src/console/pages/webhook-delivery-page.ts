import type { z } from 'zod';
import type {
  DeliveryDetail as DeliveryDetailSchema,
  ReplayResult as ReplayResultSchema,
} from '../../contract/schemas/webhook.js';
import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { dataTable } from '../ui/data-table.js';
import { errorNotice } from '../ui/error-notice.js';
import { statusBadge, timeCell } from '../ui/format.js';

type DeliveryDetail = z.infer<typeof DeliveryDetailSchema>;
type ReplayResult = z.infer<typeof ReplayResultSchema>;

function summary(d: DeliveryDetail): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    h('div', {}, h('dt', {}, 'Event'), h('dd', {}, d.event)),
    h('div', {}, h('dt', {}, 'Status'), h('dd', {}, statusBadge(d.status))),
    h('div', {}, h('dt', {}, 'Attempts'), h('dd', {}, String(d.attempt))),
    h('div', {}, h('dt', {}, 'Latest response'), h('dd', {}, d.statusCode === null ? '—' : String(d.statusCode))),
    h('div', {}, h('dt', {}, 'Latest attempt'), h('dd', {}, timeCell(d.timestamp))),
    h('div', {}, h('dt', {}, 'Next attempt'), h('dd', {}, timeCell(d.nextAttemptAt))),
    h('div', { class: 'wide' }, h('dt', {}, 'Event id (webhook-id header)'), h('dd', { class: 'mono' }, d.eventId)),
  );
}

function attemptsTable(d: DeliveryDetail): HTMLElement {
  return dataTable<DeliveryDetail['attempts'][number]>(
    'Attempts of this delivery, in order',
    [
      { header: 'Attempt', cell: (a) => String(a.attempt), numeric: true },
      { header: 'Result', cell: (a) => statusBadge(a.success ? 'delivered' : 'failed') },
      {
        header: 'Status code',
        cell: (a) => (a.statusCode === null ? 'no answer' : String(a.statusCode)),
        numeric: true,
      },
      { header: 'Latency', cell: (a) => `${a.latencyMs} ms`, numeric: true },
      { header: 'Error', cell: (a) => a.error ?? '—' },
      { header: 'Kind', cell: (a) => (a.manual ? 'replay' : 'automatic') },
      { header: 'Time', cell: (a) => timeCell(a.timestamp) },
    ],
    d.attempts,
    'No attempt yet.',
  );
}

/** One webhook delivery: its state, every attempt, and a Replay button (the sync replay: sent now, answer shown). */
export const webhookDeliveryPage: Page = {
  path: '/console/webhooks/deliveries/:id',
  title: 'Webhook delivery',
  needsOrganization: true,
  async render({ api, params, signal }) {
    const path = `/api/v2/webhooks/deliveries/${encodeURIComponent(params.id!)}`;
    const first = await api.get<DeliveryDetail>(path, undefined, signal);
    const facts = h('div', {}, summary(first));
    const attempts = h('div', {}, attemptsTable(first));
    const outcome = h('div', { role: 'status', tabindex: -1 });
    const replay = h('button', { type: 'button' }, 'Replay now');
    replay.addEventListener('click', async () => {
      replay.disabled = true;
      replaceChildren(outcome, h('p', { class: 'muted' }, 'Sending…'));
      try {
        const r = await api.send<ReplayResult>('POST', `${path}/replay`);
        const answer = r.statusCode === null ? 'gave no answer' : `answered ${r.statusCode}`;
        replaceChildren(
          outcome,
          h(
            'div',
            { class: `notice ${r.delivered ? 'ok' : 'error'}` },
            h('strong', {}, `Attempt ${r.attempt} ${r.delivered ? 'delivered' : 'failed'}.`),
            ` The receiver ${answer} in ${r.latencyMs} ms.`,
          ),
        );
        const now = await api.get<DeliveryDetail>(path, undefined, signal);
        replaceChildren(facts, summary(now));
        replaceChildren(attempts, attemptsTable(now));
      } catch (err) {
        if (!signal.aborted) replaceChildren(outcome, errorNotice(err));
      } finally {
        replay.disabled = false;
      }
      outcome.focus();
    });
    return h(
      'section',
      {},
      h('p', { class: 'small' }, h('a', { href: '/console/webhooks' }, 'Webhooks'), ' / delivery'),
      h('h1', { tabindex: -1 }, 'Delivery ', h('code', {}, first.id)),
      facts,
      h('h2', {}, 'Attempts'),
      attempts,
      h(
        'div',
        { class: 'actions' },
        replay,
        h(
          'span',
          { class: 'muted small' },
          'Sends the same event again now as the next attempt (plan launch or higher, live key).',
        ),
      ),
      outcome,
    );
  },
};
