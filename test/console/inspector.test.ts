import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type ClientRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import {
  launchBrowser,
  saveScreenshot,
  seriousAxeFindings,
  signIn,
  watchProblems,
  type PageProblems,
} from '../helpers/browser.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// Monday 2 March 2026, 07:00 in New York: the bookings below are on Tuesday.
const clock = createTestClock('2026-03-02T12:00:00Z');
let svc: TestService;
let browser: Browser;
let org: Awaited<ReturnType<typeof newOrganization>>;
let graph: Awaited<ReturnType<typeof providerWithService>>;

/** How long the page may lag behind the API (the issue: at most a second; 3 s leaves room for a loaded machine). */
const LIVE_TIMEOUT = 3000;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService({ clock }), launchBrowser()]);
  org = await newOrganization(svc, `console-inspector-${randomUUID().slice(0, 8)}`);
  graph = await providerWithService(org, { externalId: 'p1' });
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

/** A pending v1 booking at `time` on Tuesday: its actor starts `pending`, so confirm and cancel are real steps. */
async function pendingBooking(time: string): Promise<{ id: string; token: string }> {
  const slots = await org.api.get(
    `/api/v1/slots?providerId=${graph.provider.id}&eventTypeId=${graph.service.id}&date=2026-03-03`,
  );
  const slot = slots.body.slots?.find((s: { time: string }) => s.time === time);
  if (!slot) throw new Error(`no slot ${time}: ${JSON.stringify(slots.body)}`);
  const made = await org.api.post('/api/v1/bookings', {
    providerId: graph.provider.id,
    serviceId: graph.service.id,
    slotId: slot.id,
    attendee: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
  });
  if (made.status !== 200) throw new Error(`create: ${JSON.stringify(made.body)}`);
  return { id: made.body.data.id, token: made.body.data.tokenToConfirm };
}

/** The attendee's confirmation link (no key: the token is the credential). */
const confirmByLink = (b: { id: string; token: string }) =>
  request(svc.url, 'GET', `/api/v1/bookings/${b.id}/confirm?token=${encodeURIComponent(b.token)}`, {
    headers: { accept: 'application/json' },
  });

/** A signed-in page (platform key, the test organization chosen) at 1280 px, with its problems recorded. */
async function openConsole(base = svc.url): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = await watchProblems(page);
  await signIn(page, base, svc.platformKey, org.org.id);
  return { page, problems };
}

/**
 * A pass-through HTTP proxy in front of the service that can cut the inspector's open streams (`drop`) and answer
 * later stream requests itself: 503 as an overloaded gateway would, or 404 ROUTE_NOT_FOUND as a service without the
 * stream route would.
 */
async function streamCutter(target: string) {
  const open = new Set<{ res: ServerResponse; up: ClientRequest }>();
  const state = { streams: 'pass' as 'pass' | 'unavailable' | 'missing' };
  const server = createServer((req, res) => {
    const isStream = /\/stream(\?|$)/.test(req.url ?? '');
    if (isStream && state.streams !== 'pass') {
      const [status, code] = state.streams === 'missing' ? [404, 'ROUTE_NOT_FOUND'] : [503, 'SERVICE_UNAVAILABLE'];
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code, message: `stream ${state.streams} (test proxy)` } }));
      return;
    }
    const up = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    if (isStream) {
      const pair = { res, up };
      open.add(pair);
      res.on('close', () => open.delete(pair));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    /** Cuts every stream open through the proxy, on both sides. */
    drop() {
      for (const { res, up } of open) {
        res.destroy();
        up.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The catalogue through the navigation, then an actor through its "Open an actor" form. */
async function openActor(page: Page, kind: string, id: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Inspector', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Inspector' }).waitFor();
  await page.getByLabel('Actor kind').selectOption(kind);
  await page.getByLabel('Actor id').fill(id);
  await page.getByLabel('Actor id').press('Enter');
  await page.getByRole('heading', { level: 1, name: `${kind} ${id}` }).waitFor();
}

/** The diagram's current-state node text (Graphviz draws it with the "● " mark) and its numbered taken edges. */
const activeNodes = (page: Page) => page.locator('figure.diagram svg g.node.active text').allTextContents();
const takenEdges = (page: Page) => page.locator('figure.diagram svg g.edge.taken text').allTextContents();
const historySteps = (page: Page) =>
  page.getByRole('table', { name: /^History of/ }).getByRole('button', { name: /^Show step/ });
/** Waits until the diagram draws `state` as the current one. */
const diagramShows = (page: Page, state: string) =>
  page.locator('figure.diagram svg g.node.active text', { hasText: `● ${state}` }).waitFor({ timeout: LIVE_TIMEOUT });

async function noSeriousFindings(t: ExecutionContext, page: Page, where: string): Promise<void> {
  t.deepEqual(await seriousAxeFindings(page), [], where);
}

const noProblems = (t: ExecutionContext, problems: PageProblems) =>
  t.deepEqual(problems, { cspViolations: [], pageErrors: [], consoleErrors: [] });

test.serial(
  'the catalogue draws the four machines from their definitions, with states, events and transitions',
  async (t) => {
    const { page, problems } = await openConsole();
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Inspector', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Inspector' }).waitFor();
    // Graphviz (WebAssembly) ran under the page's CSP: four drawings, each named for what it shows.
    const drawings = page.locator('figure.diagram svg[role="img"]');
    await drawings.nth(3).waitFor();
    t.is(await drawings.count(), 4);
    const labels = await drawings.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    t.deepEqual(
      labels.map((l) => l?.match(/the (\w+) machine, version (\d+)/)?.slice(1)),
      [
        ['resolution', '1'],
        ['hold', '1'],
        ['booking', '1'],
        ['waitlist_entry', '1'],
      ],
    );
    t.true((await drawings.nth(2).locator('g.node text').allTextContents()).includes('cancelled'));
    // The booking machine's transitions as a table: guards named, targetless ones said to stay.
    const booking = page.getByRole('table', { name: /Transitions of the booking machine/ });
    t.is(await booking.getByRole('row').count(), 1 + 8);
    t.true((await booking.getByRole('row', { name: /confirmed COMPLETE hasEnded completed/ }).count()) === 1);
    t.true(
      (await page
        .getByRole('table', { name: /Transitions of the resolution machine/ })
        .getByRole('row', { name: /HOLD_STARTED .*stays/ })
        .count()) === 1,
    );
    await noSeriousFindings(t, page, 'catalogue at 1280 px');
    await page.setViewportSize({ width: 390, height: 844 });
    await noSeriousFindings(t, page, 'catalogue at 390 px');
    noProblems(t, problems);
    await page.context().close();
  },
);

test.serial(
  'a booking followed live: confirm and cancel through the API show up within a second or so; past steps can be replayed',
  async (t) => {
    const booking = await pendingBooking('10:00');
    const { page, problems } = await openConsole();
    await openActor(page, 'booking', booking.id);
    const live = page.getByRole('status').filter({ hasText: /^Live/ });
    await live.waitFor({ timeout: LIVE_TIMEOUT });
    t.is(
      await live.textContent(),
      'Live: following changes as they happen',
      'the page follows the SSE stream, not the polling fallback',
    );
    const state = page.locator('[data-fact="state"]');
    t.is(await state.textContent(), 'pending');
    t.deepEqual(await activeNodes(page), ['● pending']);
    t.is(await historySteps(page).count(), 1);
    t.deepEqual(await takenEdges(page), []);
    await noSeriousFindings(t, page, 'actor page at 1280 px');

    // Confirm through the attendee's link: the state, the diagram and the history follow.
    let started = Date.now();
    t.is((await confirmByLink(booking)).status, 200);
    await state.filter({ hasText: 'confirmed' }).waitFor({ timeout: LIVE_TIMEOUT });
    const confirmLag = Date.now() - started;
    await diagramShows(page, 'confirmed');
    t.is(await historySteps(page).count(), 2);
    t.deepEqual(await takenEdges(page), ['1: CONFIRM']);
    const row2 = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Show step 2' }) });
    t.regex((await row2.textContent()) ?? '', /CONFIRM.*pending.*confirmed/);

    // Cancel with the organization's key: the row names the key and the request.
    started = Date.now();
    const cancelled = await org.api.post(`/api/v1/bookings/${booking.id}/cancel`, { reason: 'test' });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    await state.filter({ hasText: 'cancelled' }).waitFor({ timeout: LIVE_TIMEOUT });
    const cancelLag = Date.now() - started;
    await diagramShows(page, 'cancelled');
    t.is(await historySteps(page).count(), 3);
    t.deepEqual(await takenEdges(page), ['1: CONFIRM', '2: CANCEL']);
    const row3 = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Show step 3' }) });
    const row3Text = (await row3.textContent()) ?? '';
    t.regex(row3Text, /CANCEL.*confirmed.*cancelled/);
    t.true(row3Text.includes('organization_live'), row3Text);
    t.true(row3Text.includes(cancelled.headers.get('x-service-request-id')!), row3Text);
    await saveScreenshot(page, 'inspector');
    t.log(`page caught up ${confirmLag} ms after the confirm call returned, ${cancelLag} ms after the cancel call`);
    t.true(confirmLag < LIVE_TIMEOUT && cancelLag < LIVE_TIMEOUT);
    // The page showed what the server holds.
    t.is((await org.api.get(`/api/v2/bookings/${booking.id}`)).body.status, 'cancelled');

    // A past step: the diagram as after step 2 (confirmed, one transition taken), then step 1 by keyboard.
    await page.getByRole('button', { name: 'Show step 2' }).click();
    await page.getByText('Viewing step 2').waitFor();
    await diagramShows(page, 'confirmed');
    t.deepEqual(await activeNodes(page), ['● confirmed']);
    t.deepEqual(await takenEdges(page), ['1: CONFIRM']);
    t.is(await page.getByRole('button', { name: 'Show step 2' }).getAttribute('aria-pressed'), 'true');
    t.regex(
      (await page.locator('figure.diagram svg').getAttribute('aria-label')) ?? '',
      /as after step 2 \(CONFIRM\): state confirmed/,
    );
    await page.getByRole('button', { name: 'Show step 1' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Viewing step 1').waitFor();
    await diagramShows(page, 'pending');
    t.deepEqual(await takenEdges(page), []);
    await page.getByRole('button', { name: 'Back to live' }).click();
    await diagramShows(page, 'cancelled');
    t.deepEqual(await takenEdges(page), ['1: CONFIRM', '2: CANCEL']);
    t.false(await page.getByRole('button', { name: 'Back to live' }).isVisible());

    await page.setViewportSize({ width: 390, height: 844 });
    await noSeriousFindings(t, page, 'actor page at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
    noProblems(t, problems);
    await page.context().close();
  },
);

test.serial(
  'while a past step is pinned, new steps only extend the history and say so; "Back to live" draws them; an unknown actor shows the refusal',
  async (t) => {
    const booking = await pendingBooking('11:00');
    const { page, problems } = await openConsole();
    await openActor(page, 'booking', booking.id);
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: LIVE_TIMEOUT });
    await page.getByRole('button', { name: 'Show step 1' }).click();
    await page.getByText('Viewing step 1').waitFor();

    t.is((await confirmByLink(booking)).status, 200);
    await historySteps(page).nth(1).waitFor({ timeout: LIVE_TIMEOUT });
    await page.getByRole('status').filter({ hasText: '1 new step arrived.' }).waitFor();
    t.deepEqual(await activeNodes(page), ['● pending'], 'the pinned drawing stays');
    t.is(await page.locator('[data-fact="state"]').textContent(), 'pending');

    await page.getByRole('button', { name: 'Back to live' }).click();
    await diagramShows(page, 'confirmed');
    t.is(await page.locator('[data-fact="state"]').textContent(), 'confirmed');
    t.deepEqual(await takenEdges(page), ['1: CONFIRM']);
    t.is(await page.getByRole('status').filter({ hasText: 'new step' }).count(), 0);
    noProblems(t, problems);

    // An unknown actor: the API's refusal where the page would be (the 404 itself is logged by the browser as a failed load).
    await page.goto(`${svc.url}/console/inspector/booking/bkg_nope`);
    await page.getByRole('alert').filter({ hasText: 'BOOKING_NOT_FOUND' }).waitFor();
    t.deepEqual([problems.cspViolations, problems.pageErrors], [[], []]);
    await page.context().close();
  },
);

test.serial(
  'the live view reconnects with backoff when its stream drops, and reads every second where the stream route is missing',
  async (t) => {
    const proxy = await streamCutter(svc.url);
    t.teardown(() => proxy.close());
    const booking = await pendingBooking('12:00');
    const { page, problems } = await openConsole(proxy.url);
    await openActor(page, 'booking', booking.id);
    const indicator = page.locator('p.live-state');
    await indicator.filter({ hasText: 'Live: following changes as they happen' }).waitFor({ timeout: LIVE_TIMEOUT });

    // The stream drops and the next attempts are refused: the page says so and keeps trying, waiting longer each time.
    proxy.state.streams = 'unavailable';
    proxy.drop();
    await indicator.filter({ hasText: /Connection lost; reconnecting in \d+ s/ }).waitFor({ timeout: LIVE_TIMEOUT });
    await page.getByRole('alert').filter({ hasText: 'SERVICE_UNAVAILABLE' }).waitFor();
    proxy.state.streams = 'pass';
    await indicator.filter({ hasText: 'Live: following changes as they happen' }).waitFor({ timeout: 10_000 });
    t.is(await page.getByRole('alert').count(), 0, 'the problem is cleared once the stream is back');
    t.is((await confirmByLink(booking)).status, 200);
    await page.locator('[data-fact="state"]', { hasText: 'confirmed' }).waitFor({ timeout: LIVE_TIMEOUT });

    // A service without the stream route: the page falls back to reading the actor every second.
    proxy.state.streams = 'missing';
    proxy.drop();
    await indicator.filter({ hasText: 'Live: reading the actor every second' }).waitFor({ timeout: LIVE_TIMEOUT });
    t.is((await org.api.post(`/api/v1/bookings/${booking.id}/cancel`, {})).status, 200);
    await page.locator('[data-fact="state"]', { hasText: 'cancelled' }).waitFor({ timeout: LIVE_TIMEOUT });
    await diagramShows(page, 'cancelled');
    t.deepEqual(await takenEdges(page), ['1: CONFIRM', '2: CANCEL']);

    t.deepEqual([problems.cspViolations, problems.pageErrors], [[], []]);
    // The cut and refused streams are the only console errors (Chromium logs every failed load).
    t.deepEqual(
      problems.consoleErrors.filter(
        (e) =>
          !/^Failed to load resource: (the server responded with a status of (503|404)|net::ERR_INCOMPLETE_CHUNKED_ENCODING)/.test(
            e,
          ),
      ),
      [],
    );
    await page.context().close();
  },
);
