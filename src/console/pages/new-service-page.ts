import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { formField } from '../ui/form-field.js';
import { submitForm } from '../ui/submit-form.js';
import { providerPicker } from './provider-picker.js';
import { serviceForm } from './service-form.js';
import type { Service } from './services-page.js';

/** Adds a service to a provider (POST /api/v2/services), then opens it. */
export const newServicePage: Page = {
  path: '/console/services/new',
  title: 'New service',
  needsOrganization: true,
  async render(ctx) {
    const provider = await providerPicker(ctx.api, ctx.signal, ctx.query.get('providerId'), { required: true });
    const fields = serviceForm();
    const form = h('form', { class: 'card', 'aria-labelledby': 'new-service-form' });
    const problem = submitForm<Service>(
      ctx.api,
      form,
      () => ({
        method: 'POST',
        path: '/api/v2/services',
        body: { providerId: provider.value, ...fields.body('create') },
      }),
      (s) => ctx.navigate(`/console/services/${encodeURIComponent(s.id)}`),
    );
    form.append(
      h('h2', { id: 'new-service-form' }, 'Service'),
      ...fields.rows(formField('Provider', provider)),
      problem,
      h('button', { type: 'submit' }, 'Create service'),
    );
    return h('section', {}, h('h1', { tabindex: -1 }, 'New service'), form);
  },
};
