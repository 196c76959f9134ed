import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  launchBrowser,
  saveScreenshot,
  seriousAxeFindings,
  signIn,
  watchProblems,
  type PageProblems,
} from '../helpers/browser.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';

// One service that allows http://127.0.0.1 webhook URLs (the local receiver), one receiver, one browser.
let svc: TestService;
let receiver: WebhookReceiver;
let browser: Browser;
/**
 * A platform_live key (the test service's own platform key is a test key; configuring webhooks, test sends, replays
 * and creating live keys need live).
 */
let liveKey: string;

test.before(async () => {
  [svc, receiver, browser] = await Promise.all([
    startTestService({ env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' } }),
    startWebhookReceiver(),
    launchBrowser(),
  ]);
  liveKey = await livePlatformKey(svc);
});
test.after.always(async () => {
  await browser?.close();
  await receiver?.stop();
  await svc?.stop();
});

let orgCount = 0;
async function newOrg(
  plan: 'free' | 'launch' = 'launch',
): Promise<{ id: string; name: string; api: ReturnType<typeof client> }> {
  const n = ++orgCount;
  const org = (
    await client(svc.url, liveKey).post('/api/v2/organizations', {
      externalId: `console-${n}`,
      name: `Console Clinic ${n}`,
      settings: { plan },
    })
  ).body;
  return { id: org.id, name: org.name, api: client(svc.url, liveKey, { 'service-organization-id': org.id }) };
}

async function openPage(width = 1280): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  // The copy button's clipboard write is allowed here, so the test can see it succeed.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
  const page = await context.newPage();
  return { page, problems: await watchProblems(page) };
}

/** Loads the page at a phone's width once and checks it with axe, then goes back to 1280 px. */
async function checkAtPhoneWidth(t: ExecutionContext, page: Page, heading: RegExp | string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  t.deepEqual(await seriousAxeFindings(page), [], `390 px: ${page.url()}`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Console errors other than the "Failed to load resource" lines Chromium prints for the API's expected refusals
 * (the page shows those as notices; `expected` names their statuses).
 */
function unexpectedConsoleErrors(problems: PageProblems, expected: number[]): string[] {
  return problems.consoleErrors.filter(
    (m) => !expected.some((s) => m.startsWith(`Failed to load resource: the server responded with a status of ${s}`)),
  );
}

test.serial(
  'API keys: create an organization key and see its secret once, the key works; revoke it after a confirmation and the API refuses it',
  async (t) => {
    const org = await newOrg();
    const { page, problems } = await openPage();
    await signIn(page, svc.url, liveKey);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    t.deepEqual(await seriousAxeFindings(page), [], 'API keys page at 1280 px');

    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Type').selectOption('organization_live');
    await form.getByLabel('Organization').selectOption(org.id);
    await form.getByLabel('Name').fill('Front desk');
    await form.getByLabel('Name').press('Enter');

    const box = page.getByRole('region', { name: /^New key Front desk/ });
    await box.waitFor();
    await box.getByText('will not be shown again').waitFor();
    const secret = (await box.locator('code[data-secret]').textContent())!;
    t.regex(secret, /^service_live_[A-Za-z0-9_-]{43}$/);
    await box.getByRole('button', { name: 'Copy' }).click();
    await box
      .getByRole('status')
      .filter({ hasText: /Copied|refused/ })
      .waitFor();

    // The new key acts in the organization, in live mode.
    const asNewKey = await client(svc.url, secret).get('/api/v2/caller');
    t.is(asNewKey.status, 200, JSON.stringify(asNewKey.body));
    t.like(asNewKey.body, { keyType: 'organization_live', mode: 'live', organizationId: org.id });
    const row = page.getByRole('row', { name: /Front desk/ });
    await row.getByText('active').waitFor();
    t.true((await row.textContent())!.includes(org.name));

    // Leaving the page takes the secret away: it is in no page, no storage.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Platform overview' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('row', { name: /Front desk/ }).waitFor();
    t.false((await page.content()).includes(secret), 'the secret is shown once only');
    t.false(
      (
        (await page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage }) + document.cookie')) as string
      ).includes(secret),
    );

    // Revoke: the first click asks, the second acts; the list shows it, and the API refuses the key.
    await page.getByRole('button', { name: 'Revoke Front desk' }).click();
    t.is((await client(svc.url, secret).get('/api/v2/caller')).status, 200, 'asking is not revoking');
    await page.getByRole('button', { name: 'Confirm revoke Front desk' }).click();
    await page
      .getByRole('row', { name: /Front desk/ })
      .getByText('revoked')
      .waitFor();
    await page.getByText(/Key Front desk .* is revoked/).waitFor();
    const refused = await client(svc.url, secret).get('/api/v2/caller');
    t.is(refused.status, 401, JSON.stringify(refused.body));
    const listed = (await client(svc.url, liveKey).get('/api/v2/api-keys?limit=500')).body.data.find(
      (k: any) => k.name === 'Front desk',
    );
    t.truthy(listed.revokedAt);

    await checkAtPhoneWidth(t, page, 'API keys');
    await page
      .getByRole('row', { name: /Front desk/ })
      .getByText('revoked')
      .waitFor();
    t.deepEqual(problems.cspViolations, []);
    t.deepEqual(problems.pageErrors, []);
    t.deepEqual(problems.consoleErrors, []);
    await page.context().close();
  },
);

test.serial(
  'webhooks: configure against a local receiver, send a signed test, see a delivery in the log, open it and replay it',
  async (t) => {
    const org = await newOrg('launch');
    const { page, problems } = await openPage();
    await signIn(page, svc.url, liveKey, org.id);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook is configured yet').waitFor();
    t.deepEqual(await seriousAxeFindings(page), [], 'webhooks page at 1280 px');

    const form = page.getByRole('form', { name: 'Configure' });
    await form.getByLabel('Receiver URL').fill(receiver.url);
    await form.getByLabel('professional.created').check();
    await form.getByLabel('booking.confirmed').check();
    await form.getByLabel('Receiver URL').press('Enter');
    const box = page.getByRole('region', { name: 'Webhook signing secret' });
    await box.getByText('will not be shown again').waitFor();
    const secret = (await box.locator('code[data-secret]').textContent())!;
    t.regex(secret, /^whsec_/);
    const cfg = await org.api.get('/api/v2/webhooks');
    t.like(cfg.body, { url: receiver.url, events: ['professional.created', 'booking.confirmed'], active: true });

    // A test send: the receiver gets a request signed with the secret the page showed.
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page
      .locator('[data-test-result]')
      .filter({ hasText: 'Test delivered.' })
      .filter({ hasText: 'answered 200' })
      .waitFor();
    const [sent] = await receiver.waitFor(
      1,
      (r) => r.body?.organizationId === org.id && r.body?.type === 'webhook.test',
    );
    t.deepEqual(new StandardWebhook(secret).verify(sent!.rawBody, sent!.headers as Record<string, string>), sent!.body);

    // An event made through the API is delivered; the log shows it after a refresh, with the total.
    t.is(
      (await org.api.post('/api/v2/providers', { externalId: 'console-hook-1', displayName: 'Dr. Console' })).status,
      200,
    );
    const [event] = await receiver.waitFor(
      1,
      (r) => r.body?.organizationId === org.id && r.body?.type === 'professional.created',
    );
    t.deepEqual(
      new StandardWebhook(secret).verify(event!.rawBody, event!.headers as Record<string, string>),
      event!.body,
    );
    const delivery = await waitForDelivered(org.api);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const logRow = page.getByRole('row', { name: new RegExp(delivery.id) });
    await logRow.getByText('delivered').waitFor();
    t.true((await logRow.textContent())!.includes('professional.created'));
    t.is(await page.locator('p.total').textContent(), '1 delivery match.');
    await saveScreenshot(page, 'webhooks', { fullPage: true });

    // Filters live in the URL: a reload keeps them.
    const log = page.getByRole('form', { name: 'Delivery filters' });
    await log.getByLabel('Status').selectOption('failed');
    await log.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('0 deliveries match.').waitFor();
    t.is(new URL(page.url()).searchParams.get('status'), 'failed');
    await page.reload();
    await page.getByText('0 deliveries match.').waitFor();
    t.is(await page.getByRole('form', { name: 'Delivery filters' }).getByLabel('Status').inputValue(), 'failed');
    await page.getByRole('form', { name: 'Delivery filters' }).getByLabel('Status').selectOption('delivered');
    await page.getByRole('form', { name: 'Delivery filters' }).getByLabel('Event').selectOption('professional.created');
    await page.getByRole('form', { name: 'Delivery filters' }).getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 delivery match.').waitFor();
    t.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), {
      status: 'delivered',
      event: 'professional.created',
    });
    await checkAtPhoneWidth(t, page, 'Webhooks');

    // The delivery's page: its attempt, then a replay that adds the next one.
    await page.getByRole('link', { name: delivery.id }).click();
    await page.getByRole('heading', { level: 1, name: `Delivery ${delivery.id}` }).waitFor();
    const attempts = page.getByRole('table', { name: 'Attempts of this delivery, in order' });
    await attempts.getByRole('row').nth(1).waitFor();
    t.is(await attempts.getByRole('row').count(), 2, 'a header and one attempt');
    t.regex((await attempts.getByRole('row').nth(1).textContent())!, /1\s*delivered\s*200/);
    t.deepEqual(await seriousAxeFindings(page), [], 'delivery page at 1280 px');

    await page.getByRole('button', { name: 'Replay now' }).click();
    await page.getByText('Attempt 2 delivered.').waitFor();
    await attempts.getByRole('row').nth(2).waitFor();
    t.regex((await attempts.getByRole('row').nth(2).textContent())!, /2\s*delivered\s*200.*replay/);
    const after = (await org.api.get(`/api/v2/webhooks/deliveries/${delivery.id}`)).body;
    t.deepEqual(
      after.attempts.map((a: any) => [a.attempt, a.manual]),
      [
        [1, false],
        [2, true],
      ],
    );
    t.is(
      receiver.requests.filter((r) => r.body?.organizationId === org.id && r.body?.type === 'professional.created')
        .length,
      2,
    );

    // Below the launch plan the API refuses a replay: the page says why, in the API's words.
    t.is(
      (await client(svc.url, liveKey).patch(`/api/v2/organizations/${org.id}`, { settings: { plan: 'free' } })).status,
      200,
    );
    await page.getByRole('button', { name: 'Replay now' }).click();
    await page.getByRole('alert').filter({ hasText: 'PLAN_UPGRADE_REQUIRED' }).waitFor();
    t.is(
      (await org.api.get(`/api/v2/webhooks/deliveries/${delivery.id}`)).body.attempts.length,
      2,
      'the refusal sent nothing',
    );
    await checkAtPhoneWidth(t, page, `Delivery ${delivery.id}`);

    t.deepEqual(problems.cspViolations, []);
    t.deepEqual(problems.pageErrors, []);
    // 404: the webhook before its set-up (the page says "not configured"); 403: the refused replay, shown as a notice.
    t.deepEqual(unexpectedConsoleErrors(problems, [404, 403]), []);
    await page.context().close();
  },
);

/** Polls the delivery log until the organization's delivery is delivered (the dispatcher works in the background). */
async function waitForDelivered(api: ReturnType<typeof client>): Promise<{ id: string }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await api.get('/api/v2/webhooks/deliveries?status=delivered');
    if (r.status === 200 && r.body.deliveries.length > 0) return r.body.deliveries[0];
    if (Date.now() > until) throw new Error(`no delivered delivery within 15 s: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

test.serial(
  'the API reference renders under the console CSP (no inline-style allowance) with no serious accessibility finding',
  async (t) => {
    const { page, problems } = await openPage();
    await page.goto(`${svc.url}/console/api-reference`);
    await page.locator('.swagger-ui .opblock').first().waitFor();
    t.deepEqual(await seriousAxeFindings(page), [], 'API reference at 1280 px');
    // At a phone's width: the viewer is one large document, so it is resized rather than loaded again (the styles
    // follow the width alike); an operation is opened too (parameters, enum selects, the highlighted example).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#operations-providers-listProviders .opblock-summary-control').click();
    await page.locator('#operations-providers-listProviders .opblock-body .highlight-code').first().waitFor();
    t.deepEqual(await seriousAxeFindings(page), [], 'API reference at 390 px with an operation open');
    t.deepEqual(problems, { cspViolations: [], pageErrors: [], consoleErrors: [] });
    await page.context().close();
  },
);
