import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { timeCell } from '../ui/format.js';
import { submitForm } from '../ui/submit-form.js';
import { scheduleForm, weekText, type Schedule } from './schedule-form.js';

const fact = (label: string, value: Node | string, wide = false) =>
  h('div', { class: wide ? 'wide' : undefined }, h('dt', {}, label), h('dd', {}, value));

/** One schedule (calendar connection): its facts, the form that changes it (PATCH) and its deletion (DELETE). */
export const schedulePage: Page = {
  path: '/console/schedules/:id',
  title: 'Schedule',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    const path = `/api/v2/calendar-connections/${encodeURIComponent(ctx.params.id!)}`;
    let c = await api.get<Schedule>(path, undefined, signal);
    const heading = h('h1', { tabindex: -1 });
    const facts = h('dl', { class: 'facts' });
    const notice = h('div', { role: 'status', tabindex: -1 });
    const drawFacts = () => {
      heading.textContent = c.title ?? 'Untitled schedule';
      replaceChildren(
        facts,
        fact('Id', h('code', {}, c.id)),
        fact(
          'Provider',
          h('a', { href: `/console/providers/${encodeURIComponent(c.providerId)}`, class: 'mono' }, c.providerId),
        ),
        fact('Time zone', c.timezone),
        fact('Updated', timeCell(c.updatedAt)),
        fact('Week', weekText(c.days), true),
        fact('Calendar feed', c.externalCalendar ? h('span', { class: 'mono' }, c.externalCalendar.url) : 'none', true),
      );
    };
    drawFacts();

    let fields = scheduleForm(c);
    const form = h('form', { class: 'card', 'aria-labelledby': 'edit-schedule' });
    const save = h('button', { type: 'submit' }, 'Save schedule');
    const problem = submitForm<Schedule>(
      api,
      form,
      () => {
        const body = fields.body('update');
        return typeof body === 'string' ? { problem: body } : { method: 'PATCH', path, body };
      },
      (updated) => {
        c = updated;
        drawFacts();
        drawForm();
        replaceChildren(notice, h('p', { class: 'notice ok' }, 'Schedule saved.'));
        notice.focus();
      },
    );
    const drawForm = () => {
      fields = scheduleForm(c);
      replaceChildren(form, h('h2', { id: 'edit-schedule' }, 'Edit'), ...fields.fields, problem, save);
    };
    drawForm();

    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete schedule…');
    const removeSlot = h(
      'div',
      { class: 'card danger-zone' },
      h('h2', {}, 'Delete'),
      h('p', {}, 'The provider keeps no availability from this schedule afterwards.'),
      remove,
    );
    remove.addEventListener('click', () => {
      const yes = h('button', { type: 'button', class: 'danger' }, 'Delete this schedule');
      const no = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
      const problemSlot = h('div', {});
      const confirm = h(
        'div',
        { role: 'group', 'aria-label': 'Confirm deletion' },
        h('p', {}, h('strong', {}, 'Delete this schedule?')),
        problemSlot,
        h('div', { class: 'actions' }, yes, no),
      );
      remove.replaceWith(confirm);
      no.focus();
      no.addEventListener('click', () => {
        confirm.replaceWith(remove);
        remove.focus();
      });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        try {
          await api.send('DELETE', path);
          ctx.navigate(`/console/schedules?providerId=${encodeURIComponent(c.providerId)}`);
        } catch (err) {
          replaceChildren(problemSlot, errorNotice(err));
          yes.disabled = false;
        }
      });
    });

    return h(
      'section',
      {},
      heading,
      h('p', {}, h('a', { href: '/console/schedules' }, 'All schedules')),
      notice,
      facts,
      form,
      removeSlot,
    );
  },
};
