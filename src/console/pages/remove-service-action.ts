import type { z } from 'zod';
import type { Service as ServiceSchema } from '../../contract/schemas/service.js';
import type { ApiClient } from '../api-client.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';

type Service = z.infer<typeof ServiceSchema>;

/**
 * A "Remove…" button that asks once more in place, then removes the service (DELETE /api/v2/services/:id) and calls
 * `done`; a refusal is shown beside the question.
 */
export function removeServiceAction(api: ApiClient, s: Service, done: () => void | Promise<void>): HTMLElement {
  const slot = h('div', {});
  const draw = () => {
    // The title is read out, not shown: in a list every row's button needs its own name.
    const ask = h(
      'button',
      { type: 'button', class: 'danger' },
      'Remove',
      h('span', { class: 'visually-hidden' }, ` ${s.title}`),
      '…',
    );
    replaceChildren(slot, ask);
    ask.addEventListener('click', () => {
      const yes = h('button', { type: 'button', class: 'danger' }, `Remove ${s.title}`);
      const no = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
      const problem = h('div', {});
      replaceChildren(
        slot,
        h(
          'div',
          { role: 'group', 'aria-label': `Confirm removal of ${s.title}` },
          h('p', {}, h('strong', {}, `Remove ${s.title}?`)),
          problem,
          h('div', { class: 'actions' }, yes, no),
        ),
      );
      no.focus();
      no.addEventListener('click', () => {
        draw();
        slot.querySelector('button')?.focus();
      });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        try {
          await api.send('DELETE', `/api/v2/services/${encodeURIComponent(s.id)}`);
          await done();
        } catch (err) {
          replaceChildren(problem, errorNotice(err));
          yes.disabled = false;
        }
      });
    });
  };
  draw();
  return slot;
}
