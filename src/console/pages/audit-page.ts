import type { z } from 'zod';
import type { AuditEvent as AuditEventSchema } from '../../contract/schemas/audit-event.js';
import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField } from '../ui/form-field.js';
import { idLink, jsonBlock, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';
import { isSuccessfulRead } from '../audit-reads.js';
import { auditVerification } from './audit-verification.js';

type AuditEvent = z.infer<typeof AuditEventSchema>;

const FILTERS = ['action', 'resource_type', 'resource_id'];

/** How many events one "page" reads at most while reads are hidden (requests of 200, until 50 are left to show). */
const HIDDEN_READ_REQUESTS = 5;

/** Kinds of resources the inspector follows: their audit rows link there. */
const INSPECTED = new Set(['resolution', 'hold', 'booking', 'waitlist_entry']);

function resourceCell(e: AuditEvent): Node | string {
  if (!e.resource_id) return '—';
  if (e.resource_type === 'booking')
    return idLink(e.resource_id, `/console/bookings/${encodeURIComponent(e.resource_id)}`);
  if (e.resource_type === 'resolution')
    return idLink(e.resource_id, `/console/resolutions/${encodeURIComponent(e.resource_id)}`);
  if (INSPECTED.has(e.resource_type))
    return idLink(e.resource_id, `/console/inspector/${e.resource_type}/${encodeURIComponent(e.resource_id)}`);
  return idLink(e.resource_id);
}

/** Before and after of a change, built when the reader opens it (a page of events stays light). */
function changeCell(e: AuditEvent): Node | string {
  if (e.before == null && e.after == null) return '—';
  const details = h('details', {}, h('summary', {}, 'Before and after'));
  details.addEventListener('toggle', () => {
    if (!details.open || details.childElementCount > 1) return;
    details.append(
      e.before != null
        ? jsonBlock(e.before, `State before ${e.action}`)
        : h('p', { class: 'muted small' }, 'Nothing before.'),
      e.after != null
        ? jsonBlock(e.after, `State after ${e.action}`)
        : h('p', { class: 'muted small' }, 'Nothing after.'),
    );
  });
  return details;
}

/**
 * The organization's audit log, filtered by action and resource (in the URL), under the chain's verification status.
 * Successful reads (the console's own page loads among them) are hidden unless "Show reads" is checked (`reads=shown`
 * in the URL): the API has no filter by kind, so the page filters by action name (READ_ACTIONS), reading on until it
 * has a page of other events.
 */
export const auditPage: Page = {
  path: '/console/audit',
  title: 'Audit log',
  nav: 'Audit log',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const current = queryValues(ctx.query, FILTERS);
    const text = (name: string, value: string | undefined) =>
      h('input', { type: 'text', name, value: value ?? '', autocomplete: 'off', spellcheck: 'false' });
    const hiddenNote = h('p', { class: 'muted small', 'data-hidden-reads': '' });
    let hidden = 0;
    const list = (cursor: string | undefined, limit: number) =>
      api.get<ListPage<AuditEvent>>(
        '/api/v2/audit-events',
        { ...queryValues(ctx.query, FILTERS), limit, cursor },
        signal,
      );
    const table = pagedTable<AuditEvent>({
      caption: 'Audit events, newest first',
      empty: 'No audit event matches these filters.',
      async load(cursor) {
        if (ctx.query.get('reads') === 'shown') {
          hiddenNote.textContent = '';
          return list(cursor, 50);
        }
        if (!cursor) hidden = 0;
        const rows: AuditEvent[] = [];
        let next = cursor;
        let more = true;
        for (let i = 0; i < HIDDEN_READ_REQUESTS && more && rows.length < 50; i++) {
          const page = await list(next, 200);
          for (const e of page.data) {
            if (isSuccessfulRead(e)) hidden++;
            else rows.push(e);
          }
          more = page.hasMore && page.nextCursor !== null;
          next = page.nextCursor ?? undefined;
        }
        hiddenNote.textContent = `${hidden} read event${hidden === 1 ? '' : 's'} hidden so far. Check “Show reads” to list them.`;
        return { data: rows, hasMore: more, nextCursor: more ? (next ?? null) : null };
      },
      columns: [
        { header: 'Time', cell: (e) => timeCell(e.timestamp) },
        { header: 'Action', cell: (e) => h('code', {}, e.action) },
        {
          header: 'Resource',
          cell: (e) => [h('span', { class: 'muted small' }, e.resource_type), ' ', resourceCell(e)],
        },
        {
          header: 'Actor',
          cell: (e) =>
            'keyId' in e.actor
              ? [
                  h('code', { class: 'small' }, e.actor.keyId),
                  ' ',
                  h('span', { class: 'muted small' }, e.actor.keyType),
                ]
              : 'system',
        },
        { header: 'Request', cell: (e) => (e.request_id ? h('code', { class: 'small' }, e.request_id) : '—') },
        { header: 'Change', cell: changeCell },
      ],
    });
    const form = filterForm(
      'Audit filters',
      [
        formField('Action', text('action', current.action), 'e.g. provider.create'),
        formField('Resource type', text('resource_type', current.resource_type), 'e.g. booking'),
        formField('Resource id', text('resource_id', current.resource_id)),
        h(
          'div',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            name: 'reads',
            value: 'shown',
            id: 'audit-show-reads',
            checked: ctx.query.get('reads') === 'shown',
          }),
          h('label', { for: 'audit-show-reads' }, 'Show reads'),
        ),
      ],
      reloadWithFilters(ctx, table),
    );
    const [verification] = await Promise.all([auditVerification(api, signal), table.reload()]);
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Audit log'),
      verification,
      h('h2', {}, 'Events'),
      form,
      hiddenNote,
      table.element,
    );
  },
};
