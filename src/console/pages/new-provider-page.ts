import type { Page } from '../page.js';
import { h } from '../ui/dom.js';
import { submitForm } from '../ui/submit-form.js';
import { providerForm, type Provider } from './provider-form.js';

/** Adds a provider (POST /api/v2/providers, platform keys only), then opens its page. */
export const newProviderPage: Page = {
  path: '/console/providers/new',
  title: 'New provider',
  needsOrganization: true,
  async render(ctx) {
    const heading = h('h1', { tabindex: -1 }, 'New provider');
    if (!ctx.caller.keyType.startsWith('platform'))
      return h(
        'section',
        {},
        heading,
        h(
          'p',
          { class: 'notice' },
          'Creating a provider needs a platform key (the API answers 403 PLATFORM_KEY_REQUIRED to an organization key). ',
          h('a', { href: '/console/providers' }, 'Back to the providers'),
        ),
      );
    const fields = providerForm();
    const form = h('form', { class: 'card', 'aria-labelledby': 'new-provider-form' });
    const problem = submitForm<Provider>(
      ctx.api,
      form,
      () => ({ method: 'POST', path: '/api/v2/providers', body: fields.body('create') }),
      (p) => ctx.navigate(`/console/providers/${encodeURIComponent(p.id)}?created=1`),
    );
    form.append(
      h('h2', { id: 'new-provider-form' }, 'Provider'),
      ...fields.fields,
      problem,
      h('button', { type: 'submit' }, 'Create provider'),
    );
    return h('section', {}, heading, form);
  },
};
