import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { timeCell } from '../ui/format.js';
import { priceText, type Service } from './services-page.js';

const fact = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));

/**
 * One service. It is read-only here: the API has no route to change or remove a service (no PATCH or DELETE
 * /api/v2/services/:id), so the page says so rather than offering a form that could not be saved.
 */
export const servicePage: Page = {
  path: '/console/services/:id',
  title: 'Service',
  needsOrganization: true,
  async render(ctx) {
    const s = await ctx.api.get<Service>(
      `/api/v2/services/${encodeURIComponent(ctx.params.id!)}`,
      undefined,
      ctx.signal,
    );
    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, s.title),
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
      h(
        'dl',
        { class: 'facts' },
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
      ),
      h(
        'p',
        { class: 'notice' },
        'A service cannot be changed or removed through the API (it has no PATCH or DELETE /api/v2/services/:id): create another one instead.',
      ),
    );
  },
};
