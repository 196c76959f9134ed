import type { z } from 'zod';
import type { CalendarConnection } from '../../contract/schemas/calendar-connection.js';
import type { Service } from '../../contract/schemas/service.js';
import type { Page } from '../page.js';
import { dataTable } from '../ui/data-table.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { statusBadge, timeCell } from '../ui/format.js';
import type { ListPage } from '../ui/paged-table.js';
import { submitForm } from '../ui/submit-form.js';
import { providerForm, type Provider } from './provider-form.js';
import { weekText } from './schedule-form.js';

/** A fact of a `dl.facts`. */
const fact = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));

/**
 * One provider: its facts, the form that edits it (codes, licences; PATCH), its deactivation (DELETE: inactive and
 * not searchable), and its services and schedules with links to add more.
 */
export const providerPage: Page = {
  path: '/console/providers/:id',
  title: 'Provider',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const id = ctx.params.id!;
    const path = `/api/v2/providers/${encodeURIComponent(id)}`;
    const [provider, services, schedules] = await Promise.all([
      api.get<Provider>(path, undefined, signal),
      api.get<ListPage<z.infer<typeof Service>>>('/api/v2/services', { providerId: id, limit: 500 }, signal),
      api.get<ListPage<z.infer<typeof CalendarConnection>>>(
        '/api/v2/calendar-connections',
        { providerId: id, limit: 500 },
        signal,
      ),
    ]);
    let p = provider;
    const heading = h('h1', { tabindex: -1 }, p.displayName);
    const facts = h('dl', { class: 'facts' });
    const notice = h('div', { role: 'status', tabindex: -1 });
    const drawFacts = () => {
      heading.textContent = p.displayName;
      replaceChildren(
        facts,
        fact('Id', h('code', {}, p.id)),
        fact('Status', h('span', {}, statusBadge(p.status), p.searchable ? ' searchable' : ' not searchable')),
        fact('Profile version', String(p.profileVersion)),
        fact('Licences', String(p.licenseRecords.length)),
        fact('Updated', timeCell(p.updatedAt)),
      );
    };
    drawFacts();
    if (ctx.query.get('created')) {
      replaceChildren(notice, h('p', { class: 'notice ok' }, 'Provider created.'));
      ctx.setQuery(new URLSearchParams());
    }

    // Editing: every field is sent, so clearing one clears it (null) and a removed licence is gone.
    let fields = providerForm(p);
    const form = h('form', { class: 'card', 'aria-labelledby': 'edit-provider' });
    const problem = submitForm<Provider>(
      api,
      form,
      () => ({ method: 'PATCH', path, body: fields.body('update') }),
      (updated) => {
        p = updated;
        drawFacts();
        redrawForm();
        replaceChildren(notice, h('p', { class: 'notice ok' }, `Saved: profile version ${updated.profileVersion}.`));
        notice.focus();
      },
    );
    const save = h('button', { type: 'submit' }, 'Save provider');
    const redrawForm = () => {
      fields = providerForm(p);
      replaceChildren(form, h('h2', { id: 'edit-provider' }, 'Edit'), ...fields.fields, problem, save);
    };
    redrawForm();

    // Deactivation asks once more in place: the provider stays readable, but resolutions stop offering it.
    const deactivateSlot = h('div', { class: 'card danger-zone' });
    const drawDeactivate = () => {
      if (p.status === 'inactive' && !p.searchable) {
        replaceChildren(
          deactivateSlot,
          h('h2', {}, 'Deactivate'),
          h('p', {}, 'This provider is inactive and not searchable. Set its status above to offer it again.'),
        );
        return;
      }
      const ask = h('button', { type: 'button', class: 'danger' }, 'Deactivate…');
      replaceChildren(
        deactivateSlot,
        h('h2', {}, 'Deactivate'),
        h('p', {}, 'Sets the status to inactive and searchable to false: resolutions no longer offer this provider.'),
        ask,
      );
      ask.addEventListener('click', () => {
        const yes = h('button', { type: 'button', class: 'danger' }, `Deactivate ${p.displayName}`);
        const no = h('button', { type: 'button', class: 'secondary' }, 'Keep active');
        const problemSlot = h('div', {});
        const confirm = h(
          'div',
          { role: 'group', 'aria-label': 'Confirm deactivation' },
          h('p', {}, h('strong', {}, `Deactivate ${p.displayName}?`)),
          problemSlot,
          h('div', { class: 'actions' }, yes, no),
        );
        ask.replaceWith(confirm);
        no.focus();
        no.addEventListener('click', () => {
          drawDeactivate();
          deactivateSlot.querySelector('button')?.focus();
        });
        yes.addEventListener('click', async () => {
          yes.disabled = true;
          try {
            p = await api.send<Provider>('DELETE', path);
            drawFacts();
            redrawForm();
            drawDeactivate();
            replaceChildren(notice, h('p', { class: 'notice ok' }, `${p.displayName} is deactivated.`));
            notice.focus();
          } catch (err) {
            replaceChildren(problemSlot, errorNotice(err));
            yes.disabled = false;
          }
        });
      });
    };
    drawDeactivate();

    const q = `?providerId=${encodeURIComponent(id)}`;
    return h(
      'section',
      {},
      heading,
      h('p', {}, h('a', { href: '/console/providers' }, 'All providers')),
      notice,
      facts,
      h('h2', {}, 'Services'),
      dataTable(
        `Services of ${p.displayName}`,
        [
          {
            header: 'Service',
            cell: (s) => h('a', { href: `/console/services/${encodeURIComponent(s.id)}` }, s.title),
          },
          { header: 'Duration', numeric: true, cell: (s) => `${s.duration} min` },
          { header: 'Modality', cell: (s) => s.modality ?? '—' },
        ],
        services.data,
        'No service yet.',
      ),
      h('p', {}, h('a', { href: `/console/services/new${q}` }, 'New service for this provider')),
      h('h2', {}, 'Schedules'),
      dataTable(
        `Schedules of ${p.displayName}`,
        [
          {
            header: 'Schedule',
            cell: (c) => h('a', { href: `/console/schedules/${encodeURIComponent(c.id)}` }, c.title ?? c.id),
          },
          { header: 'Time zone', cell: (c) => c.timezone },
          { header: 'Week', cell: (c) => weekText(c.days) },
          { header: 'Calendar feed', cell: (c) => (c.externalCalendar ? 'ICS' : '—') },
        ],
        schedules.data,
        'No schedule yet: the provider has no availability.',
      ),
      h('p', {}, h('a', { href: `/console/schedules/new${q}` }, 'New schedule for this provider')),
      form,
      deactivateSlot,
    );
  },
};
