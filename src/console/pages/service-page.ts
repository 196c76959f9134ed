import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { timeCell } from '../ui/format.js';
import { submitForm } from '../ui/submit-form.js';
import { removeServiceAction } from './remove-service-action.js';
import { serviceForm } from './service-form.js';
import { priceText, type Service } from './services-page.js';

const fact = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));

/** One service: its facts, the form that changes it (PATCH) and its removal (DELETE). */
export const servicePage: Page = {
  path: '/console/services/:id',
  title: 'Service',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const path = `/api/v2/services/${encodeURIComponent(ctx.params.id!)}`;
    let s = await api.get<Service>(path, undefined, signal);
    const heading = h('h1', { tabindex: -1 });
    const facts = h('dl', { class: 'facts' });
    const notice = h('div', { role: 'status', tabindex: -1 });
    const drawFacts = () => {
      heading.textContent = s.title;
      replaceChildren(
        facts,
        fact('Id', h('code', {}, s.id)),
        fact('Slug', h('code', {}, s.slug)),
        fact('Provider', h('code', {}, s.providerId)),
        fact('Duration', `${s.duration} min`),
        fact('Price', priceText(s)),
        fact('Modality', s.modality ?? '—'),
        fact('Slot interval', `${s.slotIntervalMinutes} min`),
        fact('Minimum notice', `${s.minimumNoticeMinutes} min`),
        fact('Buffers', `${s.bufferBeforeMinutes} min before, ${s.bufferAfterMinutes} min after`),
        fact('Created', timeCell(s.createdAt)),
        fact('Updated', timeCell(s.updatedAt)),
      );
    };
    drawFacts();

    // Editing sends every field, so an emptied price, currency or modality is cleared.
    let fields = serviceForm(s);
    const form = h('form', { class: 'card', 'aria-labelledby': 'edit-service' });
    const save = h('button', { type: 'submit' }, 'Save service');
    const problem = submitForm<Service>(
      api,
      form,
      () => ({ method: 'PATCH', path, body: fields.body('update') }),
      (updated) => {
        s = updated;
        drawFacts();
        drawForm();
        replaceChildren(notice, h('p', { class: 'notice ok' }, 'Service saved.'));
        notice.focus();
      },
    );
    const drawForm = () => {
      fields = serviceForm(s);
      replaceChildren(form, h('h2', { id: 'edit-service' }, 'Edit'), ...fields.rows(), problem, save);
    };
    drawForm();

    const removeSlot = h(
      'div',
      { class: 'card danger-zone' },
      h('h2', {}, 'Remove'),
      h(
        'p',
        {},
        'Resolutions, slots and new bookings stop offering this service; bookings already made keep it, and its slug is free for a new service.',
      ),
      removeServiceAction(api, s, () =>
        ctx.navigate(`/console/services?providerId=${encodeURIComponent(s.providerId)}`),
      ),
    );

    return h(
      'section',
      {},
      heading,
      h(
        'p',
        {},
        h('a', { href: '/console/services' }, 'All services'),
        ' · ',
        h('a', { href: `/console/providers/${encodeURIComponent(s.providerId)}` }, 'Its provider'),
        ' · ',
        h(
          'a',
          { href: `/console/services/new?providerId=${encodeURIComponent(s.providerId)}` },
          'Another service for this provider',
        ),
      ),
      notice,
      facts,
      form,
      removeSlot,
    );
  },
};
