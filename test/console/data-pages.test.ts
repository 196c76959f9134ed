import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import {
  launchBrowser,
  type PageProblems,
  saveScreenshot,
  seriousAxeFindings,
  signIn,
  watchProblems,
} from '../helpers/browser.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { recordHandedOffReview } from '../helpers/review-recording.js';
import { isSuccessfulRead } from '../../src/console/audit-reads.js';

// Monday 2 March 2026, 07:00 in New York: the resolution below looks at the next day.
const clock = createTestClock('2026-03-02T12:00:00Z');
let svc: TestService;
let browser: Browser;
/** One signed-in tab (platform key, the test organization chosen) that the serial tests share. */
let page: Page;
let problems: PageProblems;

/** What the API made, which the pages must show. */
let data: {
  org: Awaited<ReturnType<typeof newOrganization>>;
  resolution: any;
  excluded: any;
  unknown: any;
  hold: any;
  booking: any;
};

const idem = () => ({ 'idempotency-key': randomUUID() });

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService({ clock }), launchBrowser()]);
  const org = await newOrganization(svc, `console-data-${randomUUID().slice(0, 8)}`);
  const ana = await providerWithService(org, { externalId: 'ana', languageCodes: ['es', 'en'] });
  const ben = await providerWithService(org, { externalId: 'ben', languageCodes: ['en'] });
  // No languages at all: a language constraint is `unknown` for her, which puts her in the manual-review queue.
  const cy = await providerWithService(org, { externalId: 'cy' });
  const r = await org.api.post(
    '/api/v2/resolutions',
    {
      serviceId: ana.service.id,
      constraints: { languageCodes: { anyOf: ['es'] } },
      dateRange: { from: '2026-03-03', to: '2026-03-04' },
    },
    idem(),
  );
  if (r.status !== 200 || r.body.options.length < 2) throw new Error(`resolution: ${JSON.stringify(r.body)}`);
  const option = r.body.options[0];
  const hold = (
    await org.api.post(`/api/v2/resolutions/${r.body.resolutionId}/options/${option.optionId}/hold`, {
      ttlSeconds: 300,
    })
  ).body;
  const booking = await org.api.post(
    `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
    { optionId: option.optionId, holdId: hold.holdId, customer: { name: 'Pat Doe', email: 'pat@example.com' } },
    idem(),
  );
  if (booking.status !== 200) throw new Error(`confirm: ${JSON.stringify(booking.body)}`);
  await recordHandedOffReview(svc);
  data = { org, resolution: r.body, excluded: ben.provider, unknown: cy.provider, hold, booking: booking.body };
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  problems = await watchProblems(page);
  await signIn(page, svc.url, svc.platformKey, org.org.id);
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

/** Starts a test on the shared tab: 1280 px wide, no problems recorded yet. */
async function openConsole(): Promise<{ page: Page; problems: PageProblems }> {
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const list of Object.values(problems)) list.length = 0;
  return { page, problems };
}

/** Goes to a console page through its navigation link, as a person would, and waits for its heading. */
async function viaNavigation(page: Page, link: string, heading: string | RegExp): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/**
 * axe at 1280 px; then the page loaded at a phone's width, where nothing may reach past the viewport (tables and code
 * scroll inside their own box) and, with `axeAtPhone`, axe again; then back to 1280 px.
 */
async function checkAccessible(
  t: ExecutionContext,
  page: Page,
  heading: string | RegExp,
  opts: { axeAtPhone?: boolean } = {},
): Promise<void> {
  t.deepEqual(await seriousAxeFindings(page), [], `1280 px: ${page.url()}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  if (opts.axeAtPhone) t.deepEqual(await seriousAxeFindings(page), [], `390 px: ${page.url()}`);
  const wide = (await page.evaluate(
    `[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap, pre')).map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right)).slice(0, 8)`,
  )) as string[];
  t.deepEqual(wide, [], `390 px: nothing reaches past the viewport: ${page.url()}`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

function noProblems(t: ExecutionContext, problems: PageProblems): void {
  t.deepEqual(problems.cspViolations, [], 'no CSP violations');
  t.deepEqual(problems.pageErrors, [], 'no page errors');
  t.deepEqual(problems.consoleErrors, [], 'no console errors');
}

test.serial(
  'resolutions: the list, the options with their reasons and the "why not" of an excluded provider, filtered in the URL',
  async (t) => {
    const { page, problems } = await openConsole();
    const r = data.resolution;
    await viaNavigation(page, 'Resolutions', 'Resolutions');
    await page.getByRole('link', { name: r.resolutionId }).waitFor();
    await checkAccessible(t, page, 'Resolutions');

    // Open it by id through the form (Enter submits).
    await page.getByLabel('Resolution id').fill(r.resolutionId);
    await page.getByLabel('Resolution id').press('Enter');
    await page.getByRole('heading', { level: 1, name: `Resolution ${r.resolutionId}` }).waitFor();
    t.is(new URL(page.url()).pathname, `/console/resolutions/${r.resolutionId}`);
    for (const option of r.options) {
      const card = page.getByRole('article', { name: `#${option.rank} ${option.provider.displayName}` });
      await card.waitFor();
      t.true((await card.innerText()).includes(option.reason), `option ${option.rank} shows its reason`);
      t.true((await card.innerText()).includes('LANGUAGE_MATCH'));
    }
    t.is(
      await page.getByRole('link', { name: 'Open its actor in the inspector' }).getAttribute('href'),
      `/console/inspector/resolution/${r.resolutionId}`,
    );

    // The "why not": the excluded provider's row names the code and what was expected against what it has, from the API.
    const candidates = await data.org.api.get(`/api/v2/resolutions/${r.resolutionId}/candidates?status=excluded`);
    const exclusion = candidates.body.candidates.find((c: any) => c.providerId === data.excluded.id).exclusions[0];
    t.like(exclusion, { code: 'LANGUAGE_MISMATCH', field: 'languageCodes', required: ['es'], actual: ['en'] });
    const whyNot = page.getByRole('table', { name: 'Candidates of this resolution with their exclusions' });
    const benRow = whyNot.getByRole('row').filter({ hasText: data.excluded.id });
    await benRow.waitFor();
    const benText = await benRow.innerText();
    t.true(benText.includes(exclusion.code) && benText.includes('excluded'), benText);
    t.true(
      benText.includes(
        `${exclusion.field}: expected ${exclusion.required.join(', ')}; provider has ${exclusion.actual.join(', ')}`,
      ),
      benText,
    );
    t.true(benText.includes(exclusion.status), benText);
    await saveScreenshot(page, 'resolution-why-not', { fullPage: true });
    const cyRow = whyNot.getByRole('row').filter({ hasText: data.unknown.id });
    t.true((await cyRow.innerText()).includes('unknown'));

    // Filter by status: the URL keeps it, only the excluded provider is left, and a reload keeps the filter.
    await page.getByLabel('Status', { exact: true }).selectOption('excluded');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await whyNot.getByRole('row').filter({ hasText: data.unknown.id }).waitFor({ state: 'detached' });
    t.is(new URL(page.url()).searchParams.get('status'), 'excluded');
    t.is(await whyNot.getByRole('row').count(), 2, 'the header row and the one excluded provider');
    await checkAccessible(t, page, /^Resolution /, { axeAtPhone: true });
    t.is(await page.getByLabel('Status', { exact: true }).inputValue(), 'excluded');
    t.is(await whyNot.getByRole('row').count(), 2);
    noProblems(t, problems);
  },
);

test.serial(
  'bookings: the list shows the booking, the detail links into the inspector, to its hold and its resolution',
  async (t) => {
    const { page, problems } = await openConsole();
    const b = data.booking;
    await viaNavigation(page, 'Bookings', 'Bookings');
    const row = page.getByRole('row').filter({ hasText: b.id });
    await row.waitFor();
    const rowText = await row.innerText();
    t.true(
      rowText.includes('confirmed') && rowText.includes(b.provider.displayName) && rowText.includes('Pat Doe'),
      rowText,
    );
    await checkAccessible(t, page, 'Bookings');

    // A status filter that excludes it, in the URL; then back to "confirmed".
    await page.getByLabel('Provider id').fill(b.provider.id);
    await page.getByLabel('Status', { exact: true }).selectOption('cancelled');
    await page.getByLabel('Provider id').press('Enter');
    await page.getByText('No booking matches these filters.').waitFor();
    t.is(new URL(page.url()).searchParams.get('status'), 'cancelled');
    await page.getByLabel('Status', { exact: true }).selectOption('confirmed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: b.id }).click();

    await page.getByRole('heading', { level: 1, name: `Booking ${b.id}` }).waitFor();
    t.is(
      await page.getByRole('link', { name: 'Open this booking in the inspector' }).getAttribute('href'),
      `/console/inspector/booking/${b.id}`,
    );
    t.is(
      await page.getByRole('link', { name: 'The hold it was confirmed from, in the inspector' }).getAttribute('href'),
      `/console/inspector/hold/${data.hold.holdId}`,
    );
    t.is(
      await page.getByRole('link', { name: 'The resolution it came from' }).getAttribute('href'),
      `/console/resolutions/${b.resolutionId}`,
    );
    await checkAccessible(t, page, `Booking ${b.id}`);
    noProblems(t, problems);
  },
);

test.serial(
  'audit log: events with filters in the URL, and the chain shown intact; "Verify again" checks again',
  async (t) => {
    const { page, problems } = await openConsole();
    await viaNavigation(page, 'Audit log', 'Audit log');
    const chain = page.getByRole('region', { name: 'Chain verification' });
    await chain.getByText('intact', { exact: true }).waitFor();
    const events = page.getByRole('table', { name: 'Audit events, newest first' });
    await events.getByRole('row').filter({ hasText: 'booking.create' }).waitFor();
    await checkAccessible(t, page, 'Audit log');

    await page.getByLabel('Resource id').fill(data.booking.id);
    await page.getByLabel('Resource id').press('Enter');
    await events.locator('tbody tr').filter({ hasNotText: data.booking.id }).first().waitFor({ state: 'detached' });
    t.is(new URL(page.url()).searchParams.get('resource_id'), data.booking.id);
    const actions = await events.locator('tbody tr td:nth-child(2)').allInnerTexts();
    t.true(actions.length > 0 && actions.includes('booking.create'), actions.join(' '));
    // Reads are hidden by default (the console's own visits to the booking page among them).
    const api = await data.org.platform.get(`/api/v2/audit-events?resource_id=${data.booking.id}`);
    t.true(
      api.body.data.some((e: any) => e.action === 'booking.read'),
      'the booking page was read, as the API records',
    );
    t.deepEqual(
      actions,
      api.body.data.filter((e: any) => !isSuccessfulRead(e)).map((e: any) => e.action),
      "the rows are the API's events other than reads, in its order",
    );

    const [again] = await Promise.all([
      page.waitForResponse((res) => new URL(res.url()).pathname === '/api/v2/audit-events/verification'),
      chain.getByRole('button', { name: 'Verify again' }).click(),
    ]);
    t.is(again.status(), 200);
    await chain.getByRole('button', { name: 'Verify again' }).and(page.locator(':enabled')).waitFor();
    t.is(await chain.locator('.badge').innerText(), 'intact');
    noProblems(t, problems);
  },
);

test.serial(
  'events: the envelopes of the last 30 days newest first, filtered by type in the URL, each linked to its subject',
  async (t) => {
    const { page, problems } = await openConsole();
    await viaNavigation(page, 'Events', 'Events');
    const events = page.getByRole('table', { name: 'Events of the last 30 days, newest first' });
    await events.getByRole('row').filter({ hasText: 'booking.confirmed' }).waitFor();
    const api = (await data.org.platform.get('/api/v2/events?limit=50')).body.data;
    t.deepEqual(
      await events.locator('tbody tr td:nth-child(4)').allInnerTexts(),
      api.map((e: any) => e.id),
      "the rows are the API's events, in its order",
    );
    await checkAccessible(t, page, 'Events', { axeAtPhone: true });

    await page.getByLabel('Type').selectOption('booking.confirmed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await events.locator('tbody tr').filter({ hasNotText: 'booking.confirmed' }).first().waitFor({ state: 'detached' });
    t.is(new URL(page.url()).searchParams.get('type'), 'booking.confirmed');
    const rows = events.locator('tbody tr');
    t.is(await rows.count(), 1);
    const subject = rows.first().getByRole('link', { name: data.booking.id });
    t.is(await subject.getAttribute('href'), `/console/bookings/${data.booking.id}`);
    await rows.first().getByText('Envelope', { exact: true }).click();
    const shown = JSON.parse(await rows.first().locator('pre.json').innerText());
    const one = (await data.org.platform.get('/api/v2/events?type=booking.confirmed')).body.data[0];
    t.deepEqual(shown, one, 'the envelope shown is the one the API answers');
    t.is(shown.data.bookingId, data.booking.id);
    t.deepEqual(await seriousAxeFindings(page), [], 'with an envelope open');
    noProblems(t, problems);
  },
);

test.serial('analytics: the figures and three charts drawn on canvases, each with a data table', async (t) => {
  const { page, problems } = await openConsole();
  await viaNavigation(page, 'Analytics', 'Analytics');
  const canvases = page.locator('figure.chart-figure canvas[role="img"]');
  await canvases.nth(2).waitFor();
  t.is(await canvases.count(), 3);
  const api = (await data.org.platform.get('/api/v2/analytics?period=last_30_days')).body;
  t.like(api, { resolutions: { total: 1, resolved: 1 }, bookings: { total: 1, confirmed: 1 } });
  t.regex((await canvases.nth(0).getAttribute('aria-label')) ?? '', /Resolved 1, Zero results 0/);
  // Drawn: every canvas has painted pixels (Chart.js has run), not just an empty element.
  // (A function, not a string: the console's CSP forbids the eval a string predicate needs; no DOM types in test/.)
  await page.waitForFunction(
    () =>
      [...(globalThis as any).document.querySelectorAll('figure.chart-figure canvas')].every(
        (c: any) =>
          c.width > 0 &&
          c
            .getContext('2d')
            .getImageData(0, 0, c.width, c.height)
            .data.some((v: number) => v !== 0),
      ),
    undefined,
    { timeout: 5000 },
  );
  t.is(await page.locator('figure.chart-figure details table').count(), 3);
  t.is(await page.getByRole('term').filter({ hasText: 'Conversion rate' }).count(), 1);
  await checkAccessible(t, page, 'Analytics');
  await page.getByLabel('Period', { exact: true }).selectOption('last_7_days');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('heading', { level: 2, name: 'Last 7 days' }).waitFor();
  t.is(new URL(page.url()).searchParams.get('period'), 'last_7_days');
  noProblems(t, problems);
});

test.serial('network adequacy: bars per value drawn on canvases, and a table sorted by its headers', async (t) => {
  const { page, problems } = await openConsole();
  await viaNavigation(page, 'Network adequacy', 'Network adequacy');
  const api = (await data.org.platform.get('/api/v2/analytics/network-adequacy?dimension=language')).body;
  t.deepEqual(
    api.rows.map((r: any) => [r.value, r.resolutions, r.providers]),
    [['es', 1, 1]],
    'the resolution asked for es, which ana speaks',
  );
  const canvases = page.locator('figure.chart-figure canvas[role="img"]');
  await canvases.nth(1).waitFor();
  t.is(await canvases.count(), 2);
  t.regex((await canvases.nth(0).getAttribute('aria-label')) ?? '', /Resolutions: es 1; Providers: es 1/);
  await page.waitForFunction(
    () =>
      [...(globalThis as any).document.querySelectorAll('figure.chart-figure canvas')].every(
        (c: any) =>
          c.width > 0 &&
          c
            .getContext('2d')
            .getImageData(0, 0, c.width, c.height)
            .data.some((v: number) => v !== 0),
      ),
    undefined,
    { timeout: 5000 },
  );
  const table = page.getByRole('region', { name: 'Network adequacy by language' }).getByRole('table');
  t.is(await table.getByRole('row').count(), 2, 'a header and one value');
  t.true((await table.getByRole('row').nth(1).innerText()).includes('es'));
  t.is(await table.locator('th[aria-sort="descending"]').innerText(), 'Resolutions');
  await checkAccessible(t, page, 'Network adequacy');
  // Sorting by a header: the order and column go to the URL, and the header says how it sorts.
  const zeroResults = page.locator('th button.sort', { hasText: /^Zero results$/ });
  await zeroResults.click();
  await page.locator('th[aria-sort="descending"]', { hasText: 'Zero results' }).waitFor();
  t.is(new URL(page.url()).searchParams.get('sort'), 'zeroResultRate');
  await zeroResults.click();
  await page.locator('th[aria-sort="ascending"]', { hasText: 'Zero results' }).waitFor();
  t.is(new URL(page.url()).searchParams.get('order'), 'asc');
  // Another dimension nobody asked for: an empty state, no chart.
  await page.getByLabel('Dimension', { exact: true }).selectOption('insurance');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('heading', { level: 2, name: /By insurance plan/ }).waitFor();
  t.is(await page.locator('p.empty').count(), 1);
  t.is(await canvases.count(), 0);
  noProblems(t, problems);
});

test.serial(
  'manual review: the unknown provider is queued; resolving it in the page resolves it in the API',
  async (t) => {
    const { page, problems } = await openConsole();
    const cy = data.unknown;
    t.deepEqual(
      (await data.org.platform.get('/api/v2/manual-review')).body.data.map((e: any) => e.providerId),
      [cy.id],
    );
    await viaNavigation(page, 'Manual review', 'Manual review');
    const row = page.getByRole('row').filter({ hasText: cy.id });
    await row.waitFor();
    t.true((await row.innerText()).includes('languageCodes'));
    await checkAccessible(t, page, 'Manual review');

    await page.getByRole('button', { name: `Resolve the review of ${cy.displayName}` }).click();
    const dialog = page.getByRole('dialog', { name: `Resolve the review of ${cy.displayName}?` });
    await dialog.waitFor();
    t.deepEqual(await seriousAxeFindings(page), [], 'the confirmation dialog');
    // Cancel first: nothing changes.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.is((await data.org.platform.get('/api/v2/manual-review')).body.data[0]?.status, 'open');

    await page.getByRole('button', { name: `Resolve the review of ${cy.displayName}` }).click();
    await dialog.getByRole('button', { name: 'Mark resolved' }).click();
    await page.getByText(`The review of ${cy.displayName} is resolved.`).waitFor();
    await page.getByText('No entry with this status.').waitFor();
    t.deepEqual((await data.org.platform.get('/api/v2/manual-review')).body.data, []);
    const resolved = (await data.org.platform.get('/api/v2/manual-review?status=resolved')).body.data;
    t.like(resolved[0], { providerId: cy.id, status: 'resolved' });

    await page.getByLabel('Status', { exact: true }).selectOption('resolved');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('row').filter({ hasText: cy.id }).waitFor();
    t.is(new URL(page.url()).searchParams.get('status'), 'resolved');
    noProblems(t, problems);
  },
);

test.serial("overview: the organization's plan, graph version and counts, as the API counts them", async (t) => {
  const { page, problems } = await openConsole();
  await viaNavigation(page, 'Overview', data.org.org.name);
  const overview = (await data.org.platform.get(`/api/v2/organizations/${data.org.org.id}/overview`)).body;
  t.is(overview.counts.bookings.confirmed, 1);
  t.is(overview.counts.providers.total, 3);
  const facts = page.locator('dl.facts');
  t.true((await facts.innerText()).includes(String(overview.organization.providerGraphVersion)));
  const group = (title: string) =>
    page.locator('.count-group').filter({ has: page.getByRole('heading', { level: 3, name: title }) });
  t.regex(await group('Bookings').innerText(), /confirmed\s+1\b/);
  t.regex(await group('Providers').innerText(), /total\s+3\b/);
  t.regex(
    await group('Activity').innerText(),
    new RegExp(`resolutions \\(24 h\\)\\s+${overview.counts.resolutionsLast24h}\\b`),
  );
  await checkAccessible(t, page, data.org.org.name, { axeAtPhone: true });
  noProblems(t, problems);
});

test.serial(
  'licence on the slot date: the "why not" names the expiry date of a LICENSE_EXPIRED provider, the options warn LICENSE_EXPIRING_SOON',
  async (t) => {
    const { page, problems } = await openConsole();
    // Its own organization, so the counts the other tests check stay as they are.
    const org = await newOrganization(svc, `console-licence-${randomUUID().slice(0, 8)}`);
    const license = (expiresAt: string) => ({
      licenseTypeCode: 'psy',
      regionCode: 'US-NY',
      status: 'active',
      expiresAt,
      verifiedAt: '2026-01-01T00:00:00Z',
    });
    // Valid today (2 March), expired before the requested dates; the other's licence ends on 20 March.
    const early = await providerWithService(org, { externalId: 'early', licenseRecords: [license('2026-03-02')] });
    await providerWithService(org, { externalId: 'renewing', licenseRecords: [license('2026-03-20')] });
    const r = (
      await org.api.post(
        '/api/v2/resolutions',
        {
          serviceId: early.service.id,
          constraints: { licenseRegionCodes: { anyOf: ['US-NY'] } },
          dateRange: { from: '2026-03-03', to: '2026-03-04' },
        },
        idem(),
      )
    ).body;
    t.true(r.options.length > 0, JSON.stringify(r));
    const candidates = await org.api.get(`/api/v2/resolutions/${r.resolutionId}/candidates?status=excluded`);
    const exclusion = candidates.body.candidates.find((c: any) => c.providerId === early.provider.id).exclusions[0];
    t.like(exclusion, {
      code: 'LICENSE_EXPIRED',
      detail: 'The license for US-NY expires on 2026-03-02, before the requested dates.',
    });

    // The organization list is read when the console loads: load it again to find the new one.
    await page.reload();
    await page.getByLabel('Organization').selectOption(org.org.id);
    await page.locator('header.top .who', { hasNotText: /^Platform\b/ }).waitFor();
    await page.goto(`${svc.url}/console/resolutions/${r.resolutionId}`);
    await page.getByRole('heading', { level: 1, name: `Resolution ${r.resolutionId}` }).waitFor();
    const card = page.getByRole('article', { name: `#1 ${r.options[0].provider.displayName}` });
    t.true((await card.innerText()).includes('LICENSE_EXPIRING_SOON'), await card.innerText());
    const whyNot = page.getByRole('table', { name: 'Candidates of this resolution with their exclusions' });
    const row = whyNot.getByRole('row').filter({ hasText: early.provider.id });
    await row.waitFor();
    const text = await row.innerText();
    t.true(text.includes('LICENSE_EXPIRED') && text.includes(exclusion.detail), text);
    await saveScreenshot(page, 'resolution-why-not-licence', { fullPage: true });
    await checkAccessible(t, page, /^Resolution /);
    noProblems(t, problems);
    await page.getByLabel('Organization').selectOption(data.org.org.id);
  },
);

test.serial(
  "waitlist: each entry's offer (slot, provider, expiry), its offers made and a link to its actor in the inspector",
  async (t) => {
    // Its own organization: a cancelled booking and waiting entries would change the counts the other tests check.
    const org = await newOrganization(svc, `console-waitlist-${randomUUID().slice(0, 8)}`);
    const p = await providerWithService(org, { externalId: 'wl' });
    const r = (
      await org.api.post(
        '/api/v2/resolutions',
        { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
        idem(),
      )
    ).body;
    const booking = await org.api.post(
      `/api/v2/resolutions/${r.resolutionId}/confirm`,
      { optionId: r.options[0].optionId, customer: { name: 'Pat Doe', email: 'pat@example.com' } },
      idem(),
    );
    t.is(booking.status, 200, JSON.stringify(booking.body));
    const first = (
      await org.api.post('/api/v2/waitlist', {
        serviceId: p.service.id,
        customer: { name: 'Wanda First', email: 'w1@example.com' },
      })
    ).body;
    clock.advance(1000);
    const second = (
      await org.api.post('/api/v2/waitlist', {
        serviceId: p.service.id,
        customer: { name: 'Walt Second', email: 'w2@example.com' },
      })
    ).body;
    t.is((await org.api.post(`/api/v1/bookings/${booking.body.id}/cancel`, {})).status, 200);
    // The offer worker runs on its own: wait for the first entry's offer.
    const until = Date.now() + 15_000;
    let offered: any;
    while (Date.now() < until) {
      offered = (await org.api.get('/api/v2/waitlist')).body.data.find((e: any) => e.id === first.id);
      if (offered.status === 'offered') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    t.is(offered.status, 'offered', JSON.stringify(offered));
    t.like(offered, { offersMade: 1, offer: { providerId: p.provider.id, slotStart: r.options[0].slot.start } });

    // The organization list is read when the console loads (the last page shown was another organization's).
    await page.goto(`${svc.url}/console`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const { problems } = await openConsole();
    await page.getByLabel('Organization').selectOption(org.org.id);
    await page.locator('header.top .who', { hasNotText: /^Platform\b/ }).waitFor();
    await viaNavigation(page, 'Waitlist', 'Waitlist');
    const table = page.getByRole('table', { name: 'Waitlist entries, oldest first' });
    const row = table.getByRole('row').filter({ hasText: first.id });
    await row.waitFor();
    const text = await row.innerText();
    t.true(text.includes('offered') && text.includes('Wanda First') && text.includes(p.provider.id), text);
    // The slot and the offer's end, as <time> elements carrying the API's instants.
    t.is(await row.locator(`time[datetime="${offered.offer.slotStart}"]`).count(), 1, text);
    t.is(await row.locator(`time[datetime="${offered.offer.expiresAt}"]`).count(), 1, text);
    t.is(await row.locator('td').nth(3).innerText(), '1', 'offers made');
    t.is(
      await row
        .getByRole('link', { name: `Actor of waitlist entry ${first.id} in the inspector` })
        .getAttribute('href'),
      `/console/inspector/waitlist_entry/${first.id}`,
    );
    t.is(
      await row.getByRole('link', { name: offered.offer.resolutionId }).getAttribute('href'),
      `/console/resolutions/${offered.offer.resolutionId}`,
    );
    const waitingRow = table.getByRole('row').filter({ hasText: second.id });
    const waitingText = await waitingRow.innerText();
    t.true(waitingText.includes('waiting') && waitingText.includes('—'), waitingText);
    t.is(await waitingRow.locator('td').nth(3).innerText(), '0');
    await saveScreenshot(page, 'waitlist-offers', { fullPage: true });
    await checkAccessible(t, page, 'Waitlist', { axeAtPhone: true });

    // The status filter goes to the URL; only the offered entry is left.
    await page.getByLabel('Status', { exact: true }).selectOption('offered');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await table.getByRole('row').filter({ hasText: second.id }).waitFor({ state: 'detached' });
    t.is(new URL(page.url()).searchParams.get('status'), 'offered');
    t.is(await table.getByRole('row').count(), 2, 'the header row and the offered entry');

    // The link opens the entry's actor: offered, with its lapse timer.
    await table.getByRole('link', { name: `Actor of waitlist entry ${first.id} in the inspector` }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(first.id) }).waitFor();
    t.regex(await page.locator('main').innerText(), /offered/);
    t.regex(await page.locator('main').innerText(), /lapse/);
    t.deepEqual(await seriousAxeFindings(page), [], 'the entry actor in the inspector');
    noProblems(t, problems);
    await page.getByLabel('Organization').selectOption(data.org.org.id);
  },
);
