import type { z } from 'zod';
import type { AuditChainVerification } from '../../contract/schemas/audit-event.js';
import type { ApiClient } from '../api-client.js';
import { dataTable } from '../ui/data-table.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { statusBadge, timeCell } from '../ui/format.js';

type Verification = z.infer<typeof AuditChainVerification>;

function fact(label: string, value: Node | string | number): HTMLElement {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value));
}

function show(v: Verification): (HTMLElement | null)[] {
  return [
    h(
      'p',
      { class: `chain-status chain-${v.status}` },
      h('span', { class: 'chain-word' }, 'Hash chain '),
      statusBadge(v.status),
      h('span', { class: 'muted small' }, ' verified ', timeCell(v.verifiedAt)),
    ),
    h(
      'dl',
      { class: 'counts' },
      fact('Events checked', v.checked.toLocaleString()),
      fact('Linked', v.linked.toLocaleString()),
      fact('Waiting to be linked', v.pending.toLocaleString()),
      fact('Breaks', v.breaks.length.toLocaleString()),
      fact(
        'Positions',
        v.toPosition === 0
          ? 'empty chain'
          : `${v.fromPosition}–${v.toPosition}${v.complete ? ' (whole chain)' : ' (latest links)'}`,
      ),
    ),
    v.pending > 0
      ? h(
          'p',
          { class: 'muted small' },
          'Events waiting to be linked were written moments ago; the sequencer links them shortly. They are not breaks.',
        )
      : null,
    v.breaks.length
      ? dataTable(
          'Breaks in the hash chain',
          [
            { header: 'Event', cell: (b) => h('code', {}, b.eventId) },
            { header: 'Reason', cell: (b) => b.reason },
          ],
          v.breaks,
        )
      : null,
  ];
}

/**
 * The audit chain's verification status (GET /api/v2/audit-events/verification): intact or broken, its counts and
 * breaks, with a "Verify again" button.
 */
export async function auditVerification(api: ApiClient, signal: AbortSignal): Promise<HTMLElement> {
  const body = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary' }, 'Verify again');
  const run = async () => {
    button.disabled = true;
    try {
      replaceChildren(body, show(await api.get<Verification>('/api/v2/audit-events/verification', undefined, signal)));
    } catch (err) {
      if (!signal.aborted) replaceChildren(body, errorNotice(err));
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener('click', () => void run());
  await run();
  return h(
    'section',
    { class: 'card verification', 'aria-labelledby': 'chain-title' },
    h('h2', { id: 'chain-title' }, 'Chain verification'),
    body,
    button,
  );
}
