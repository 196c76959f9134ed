import type { z } from 'zod';
import type { Webhook as WebhookSchema, WebhookTestResult } from '../../contract/schemas/webhook.js';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhook-vocabulary.js';
import { ApiError } from '../api-client.js';
import type { Page } from '../page.js';
import { h, replaceChildren } from '../ui/dom.js';
import { errorNotice } from '../ui/error-notice.js';
import { formField } from '../ui/form-field.js';
import { statusBadge, timeCell } from '../ui/format.js';
import { secretBox } from '../ui/secret-box.js';
import { deliveryLog } from './webhook-delivery-log.js';

/** The webhook configuration as `GET /api/v2/webhooks` answers it (never its secret). */
type Webhook = z.infer<typeof WebhookSchema>;
type TestResult = z.infer<typeof WebhookTestResult>;

function configurationFacts(cfg: Webhook | null): HTMLElement {
  if (!cfg) return h('p', { class: 'empty' }, 'No webhook is configured yet: events are not sent anywhere.');
  return h(
    'dl',
    { class: 'facts' },
    h('div', { class: 'wide' }, h('dt', {}, 'URL'), h('dd', { class: 'mono' }, cfg.url)),
    h('div', {}, h('dt', {}, 'State'), h('dd', {}, statusBadge(cfg.active ? 'active' : 'inactive'))),
    h('div', {}, h('dt', {}, 'Configured'), h('dd', {}, timeCell(cfg.createdAt))),
    h(
      'div',
      { class: 'wide' },
      h('dt', {}, 'Events'),
      h('dd', {}, cfg.events.includes('*') ? 'Every event type (*)' : cfg.events.join(', ')),
    ),
  );
}

function testOutcome(r: TestResult): HTMLElement {
  const answer = r.statusCode === null ? 'gave no answer' : `answered ${r.statusCode}`;
  return h(
    'div',
    { class: `notice ${r.delivered ? 'ok' : 'error'}`, 'data-test-result': '' },
    h('strong', {}, r.delivered ? 'Test delivered.' : 'Test not delivered.'),
    ` The receiver ${answer} in ${r.latencyMs} ms. A test event is signed like any other but is not recorded in the delivery log.`,
  );
}

/** The organization's webhook: its configuration, the form to change it, secret rotation, a test send and the delivery log. */
export const webhooksPage: Page = {
  path: '/console/webhooks',
  title: 'Webhooks',
  nav: 'Webhooks',
  needsOrganization: true,
  async render(ctx) {
    const { api, signal } = ctx;
    let cfg: Webhook | null;
    try {
      cfg = await api.get<Webhook>('/api/v2/webhooks', undefined, signal);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'WEBHOOK_NOT_CONFIGURED')) throw err;
      cfg = null;
    }
    const facts = h('div', {}, configurationFacts(cfg));
    const secretSlot = h('div', {});
    const outcome = h('div', { role: 'status', tabindex: -1 });

    // The configuration form; `*` (every event type) stands alone, so it disables the single types while checked.
    const url = h('input', {
      name: 'url',
      type: 'url',
      required: true,
      maxlength: 1000,
      autocomplete: 'off',
      placeholder: 'https://example.com/hooks',
      value: cfg?.url ?? '',
    });
    const all = h('input', {
      type: 'checkbox',
      name: 'events',
      value: '*',
      id: 'event-all',
      checked: cfg?.events.includes('*') ?? false,
    });
    const boxes = WEBHOOK_EVENT_TYPES.map((e) =>
      h('input', {
        type: 'checkbox',
        name: 'events',
        value: e,
        id: `event-${e.replace(/\W/g, '-')}`,
        checked: cfg?.events.includes(e) ?? false,
      }),
    );
    const syncAll = () => {
      for (const b of boxes) b.disabled = all.checked;
    };
    all.addEventListener('change', syncAll);
    syncAll();
    const active = h('input', { type: 'checkbox', name: 'active', id: 'webhook-active', checked: cfg?.active ?? true });
    const save = h('button', { type: 'submit' }, cfg ? 'Save webhook' : 'Set up webhook');
    const formError = h('div', {});
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': 'configure-title' },
      h('h2', { id: 'configure-title' }, 'Configure'),
      formField(
        'Receiver URL',
        url,
        'Events are POSTed here, signed with the webhook secret (Standard Webhooks headers).',
      ),
      h(
        'fieldset',
        { class: 'checks' },
        h('legend', {}, 'Events'),
        h('div', { class: 'check' }, all, h('label', { for: all.id }, 'Every event type (*)')),
        h(
          'div',
          { class: 'check-grid' },
          boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value))),
        ),
      ),
      h(
        'div',
        { class: 'check' },
        active,
        h('label', { for: active.id }, 'Active (an inactive webhook records no deliveries)'),
      ),
      formError,
      save,
    );

    const rotate = h('button', { type: 'button', class: 'secondary' }, 'Rotate secret');
    const sendTest = h('button', { type: 'button', class: 'secondary' }, 'Send a test');
    const syncButtons = () => {
      rotate.disabled = !cfg;
      sendTest.disabled = !cfg;
    };
    syncButtons();

    /** PUTs the configuration; shows the secret when the answer carries one (first set-up, rotation). */
    const put = async (body: Record<string, unknown>, title: string): Promise<void> => {
      const updated = await api.send<Webhook & { secret?: string }>('PUT', '/api/v2/webhooks', body);
      const { secret, ...shown } = updated;
      cfg = shown;
      replaceChildren(facts, configurationFacts(cfg));
      save.textContent = 'Save webhook';
      syncButtons();
      if (secret) {
        replaceChildren(secretSlot, secretBox(title, secret, signal));
        const heading = secretSlot.querySelector('h2');
        heading?.setAttribute('tabindex', '-1');
        heading?.focus();
      }
    };

    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      replaceChildren(formError);
      const events = all.checked ? ['*'] : boxes.filter((b) => b.checked).map((b) => b.value);
      if (events.length === 0) {
        replaceChildren(
          formError,
          h('div', { class: 'notice error', role: 'alert' }, 'Choose at least one event type.'),
        );
        return;
      }
      save.disabled = true;
      try {
        await put({ url: url.value.trim(), events, active: active.checked }, 'Webhook signing secret');
        replaceChildren(outcome, h('div', { class: 'notice ok' }, 'Webhook saved.'));
      } catch (err) {
        replaceChildren(formError, errorNotice(err));
      } finally {
        save.disabled = false;
      }
    });
    rotate.addEventListener('click', async () => {
      if (!cfg) return;
      rotate.disabled = true;
      try {
        await put(
          { url: cfg.url, events: cfg.events, active: cfg.active, rotateSecret: true },
          'New webhook signing secret',
        );
        replaceChildren(
          outcome,
          h(
            'div',
            { class: 'notice ok' },
            'Secret rotated: the previous secret keeps signing beside the new one for 24 hours.',
          ),
        );
      } catch (err) {
        replaceChildren(outcome, errorNotice(err));
      } finally {
        syncButtons();
      }
    });
    sendTest.addEventListener('click', async () => {
      sendTest.disabled = true;
      replaceChildren(outcome, h('p', { class: 'muted' }, 'Sending a test event…'));
      try {
        replaceChildren(outcome, testOutcome(await api.send<TestResult>('POST', '/api/v2/webhooks/test')));
      } catch (err) {
        replaceChildren(outcome, errorNotice(err));
      } finally {
        syncButtons();
      }
    });

    return h(
      'section',
      {},
      h('h1', { tabindex: -1 }, 'Webhooks'),
      h(
        'section',
        { 'aria-labelledby': 'current-title' },
        h('h2', { id: 'current-title' }, 'Current configuration'),
        facts,
        h('div', { class: 'actions' }, sendTest, rotate),
        outcome,
      ),
      secretSlot,
      form,
      await deliveryLog(ctx),
    );
  },
};
