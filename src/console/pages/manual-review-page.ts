import type { z } from 'zod';
import type { ManualReviewEntry as ManualReviewEntrySchema } from '../../contract/schemas/care.js';
import type { ApiClient } from '../api-client.js';
import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { filterForm, queryValues, reloadWithFilters } from '../ui/filter-form.js';
import { formField, selectOf } from '../ui/form-field.js';
import { statusBadge, timeCell } from '../ui/format.js';
import { pagedTable, type ListPage } from '../ui/paged-table.js';

type ManualReviewEntry = z.infer<typeof ManualReviewEntrySchema>;

/**
 * Asks before resolving an entry, in a modal dialog; on "Mark resolved" posts the resolve and calls `done` with the
 * answered entry. A refusal is shown in the dialog with the API's code and message.
 */
function confirmResolve(
  api: ApiClient,
  signal: AbortSignal,
  entry: ManualReviewEntry,
  trigger: HTMLElement,
  done: (resolved: ManualReviewEntry) => void,
): void {
  const problem = h('div', {});
  const yes = h('button', { type: 'button' }, 'Mark resolved');
  const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const dialog = h(
    'dialog',
    { class: 'card confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text' },
    h('h2', { id: 'confirm-title' }, `Resolve the review of ${entry.displayName}?`),
    h(
      'p',
      { id: 'confirm-text' },
      "The entry leaves the open queue. It reopens if a later resolution finds this provider's required data unknown again.",
    ),
    problem,
    h('div', { class: 'actions' }, yes, no),
  );
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  no.addEventListener('click', () => {
    close();
    trigger.focus();
  });
  dialog.addEventListener('cancel', () =>
    queueMicrotask(() => {
      dialog.remove();
      trigger.focus();
    }),
  );
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    try {
      const resolved = await api.send<ManualReviewEntry>(
        'POST',
        `/api/v2/manual-review/${encodeURIComponent(entry.providerId)}/resolve`,
      );
      close();
      done(resolved);
    } catch (err) {
      replaceChildren(problem, errorNotice(err));
      yes.disabled = false;
    }
  });
  document.body.append(dialog);
  signal.addEventListener('abort', () => dialog.remove(), { once: true });
  dialog.showModal();
  no.focus();
}

/** Providers whose required data a resolution found unknown: the queue by status, and resolving an entry. */
export const manualReviewPage: Page = {
  path: '/console/manual-review',
  title: 'Manual review',
  nav: 'Manual review',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const notice = h('div', { role: 'status' });
    const heading = h('h1', { tabindex: -1 }, 'Manual review');
    const table = pagedTable<ManualReviewEntry>({
      caption: 'Manual-review entries',
      empty: 'No entry with this status.',
      load: (cursor) =>
        api.get<ListPage<ManualReviewEntry>>(
          '/api/v2/manual-review',
          { ...queryValues(ctx.query, ['status']), limit: 50, cursor },
          signal,
        ),
      columns: [
        { header: 'Provider', cell: (e) => [h('div', {}, e.displayName), h('code', { class: 'small' }, e.providerId)] },
        {
          header: 'Unknown data',
          cell: (e) =>
            h(
              'ul',
              { class: 'exclusions' },
              e.reasons.map((r) => h('li', {}, h('strong', {}, r.code), ` ${r.field}: ${r.detail}`)),
            ),
        },
        { header: 'First seen', cell: (e) => timeCell(e.firstSeenAt) },
        { header: 'Last seen', cell: (e) => timeCell(e.lastSeenAt) },
        {
          header: 'Status',
          cell: (e) => [statusBadge(e.status), e.resolvedAt ? [' ', timeCell(e.resolvedAt)] : null].flat(),
        },
        {
          header: 'Action',
          cell: (e) => {
            if (e.status !== 'open') return '—';
            const button = h(
              'button',
              { type: 'button', class: 'secondary', 'aria-label': `Resolve the review of ${e.displayName}` },
              'Resolve',
            );
            button.addEventListener('click', () =>
              confirmResolve(api, signal, e, button, (resolved) => {
                replaceChildren(
                  notice,
                  h('p', { class: 'notice ok' }, `The review of ${resolved.displayName} is ${resolved.status}.`),
                );
                void table.reload().then(() => heading.focus());
              }),
            );
            return button;
          },
        },
      ],
    });
    const form = filterForm(
      'Manual-review filters',
      [
        formField(
          'Status',
          selectOf(
            'status',
            [
              ['', 'Open'],
              ['resolved', 'Resolved'],
            ],
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
      heading,
      h(
        'p',
        {},
        "Providers left out of resolutions because a requested constraint met empty or missing data. Fix the provider's data, then mark the entry resolved.",
      ),
      form,
      notice,
      table.element,
    );
  },
};
