import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { formField } from '../ui/form-field.js';
import { submitForm } from '../ui/submit-form.js';
import { providerPicker } from './provider-picker.js';
import { scheduleForm, type Schedule } from './schedule-form.js';

/** Adds a schedule (POST /api/v2/calendar-connections) for a provider, then opens it. */
export const newSchedulePage: Page = {
  path: '/console/schedules/new',
  title: 'New schedule',
  needsOrganization: true,
  async render(ctx) {
    const provider = await providerPicker(ctx.api, ctx.signal, ctx.query.get('providerId'), { required: true });
    const fields = scheduleForm();
    const form = h('form', { class: 'card', 'aria-labelledby': 'new-schedule-form' });
    const problem = submitForm<Schedule>(
      ctx.api,
      form,
      () => {
        const body = fields.body('create');
        if (typeof body === 'string') return { problem: body };
        return { method: 'POST', path: '/api/v2/calendar-connections', body: { providerId: provider.value, ...body } };
      },
      (c) => ctx.navigate(`/console/schedules/${encodeURIComponent(c.id)}`),
    );
    form.append(
      h('h2', { id: 'new-schedule-form' }, 'Schedule'),
      formField('Provider', provider),
      ...fields.fields,
      problem,
      h('button', { type: 'submit' }, 'Create schedule'),
    );
    return h('section', {}, h('h1', { tabindex: -1 }, 'New schedule'), form);
  },
};
