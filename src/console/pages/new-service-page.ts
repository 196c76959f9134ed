import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { formField, selectOf } from '../ui/form-field.js';
import { submitForm } from '../ui/submit-form.js';
import { providerPicker } from './provider-picker.js';
import type { Service } from './services-page.js';

/** Adds a service to a provider (POST /api/v2/services), then opens it. */
export const newServicePage: Page = {
  path: '/console/services/new',
  title: 'New service',
  needsOrganization: true,
  async render(ctx) {
    const provider = await providerPicker(ctx.api, ctx.signal, ctx.query.get('providerId'), { required: true });
    const number = (name: string, value: string, min: number, max: number, required = false) =>
      h('input', { type: 'number', name, value, min, max, step: 1, required });
    const title = h('input', { type: 'text', name: 'title', required: true, maxlength: 200, autocomplete: 'off' });
    const duration = number('duration', '50', 5, 1440, true);
    const price = h('input', { type: 'number', name: 'price', min: 0, step: 0.01, inputmode: 'decimal' });
    const currency = h('input', { type: 'text', name: 'currency', maxlength: 3, autocomplete: 'off', value: 'USD' });
    const modality = selectOf('modality', [
      ['', 'Not said'],
      ['virtual', 'virtual'],
      ['in-person', 'in-person'],
      ['both', 'both'],
    ]);
    const interval = number('slotIntervalMinutes', '', 5, 1440);
    const notice = number('minimumNoticeMinutes', '', 0, 525600);
    const before = number('bufferBeforeMinutes', '', 0, 1440);
    const after = number('bufferAfterMinutes', '', 0, 1440);
    const form = h('form', { class: 'card', 'aria-labelledby': 'new-service-form' });
    const problem = submitForm<Service>(
      ctx.api,
      form,
      () => {
        const body: Record<string, unknown> = {
          providerId: provider.value,
          title: title.value.trim(),
          duration: Number(duration.value),
        };
        if (price.value !== '') {
          // The API takes the smallest currency unit (cents).
          body.price = Math.round(Number(price.value) * 100);
          body.currency = currency.value.trim();
        }
        if (modality.value) body.modality = modality.value;
        for (const [input, key] of [
          [interval, 'slotIntervalMinutes'],
          [notice, 'minimumNoticeMinutes'],
          [before, 'bufferBeforeMinutes'],
          [after, 'bufferAfterMinutes'],
        ] as const)
          if (input.value !== '') body[key] = Number(input.value);
        return { method: 'POST', path: '/api/v2/services', body };
      },
      (s) => ctx.navigate(`/console/services/${encodeURIComponent(s.id)}`),
    );
    form.append(
      h('h2', { id: 'new-service-form' }, 'Service'),
      h(
        'div',
        { class: 'form-row' },
        formField('Provider', provider),
        formField('Title', title, 'The slug is made from it; unique per provider.'),
        formField('Duration (minutes)', duration),
        formField('Modality', modality),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField('Price', price, 'Optional, e.g. 120.00'),
        formField('Currency', currency, 'ISO 4217, e.g. USD'),
        formField('Slot interval (minutes)', interval, 'Default: the duration'),
        formField('Minimum notice (minutes)', notice, 'Default 0'),
        formField('Buffer before (minutes)', before, 'Default 0'),
        formField('Buffer after (minutes)', after, 'Default 0'),
      ),
      problem,
      h('button', { type: 'submit' }, 'Create service'),
    );
    return h('section', {}, h('h1', { tabindex: -1 }, 'New service'), form);
  },
};
