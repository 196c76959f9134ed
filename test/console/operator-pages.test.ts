import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import type { Browser, Page, Request } from 'playwright-core';
import {
  launchBrowser,
  overflowingCards,
  type PageProblems,
  saveScreenshot,
  seriousAxeFindings,
  signIn,
  watchProblems,
} from '../helpers/browser.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// Monday 2 March 2026, 12:00 UTC: the bookings below are later that week.
const clock = createTestClock('2026-03-02T12:00:00Z');
/** A long, real IANA zone: the booking's slot and time zone must wrap inside their boxes at 390 px. */
const LONG_ZONE = 'America/North_Dakota/New_Salem';
let svc: TestService;
let browser: Browser;
let page: Page;
let problems: PageProblems;
let org: Awaited<ReturnType<typeof newOrganization>>;
let graph: Awaited<ReturnType<typeof providerWithService>>;
/** A booking confirmed from a hold (its hold is consumed), one v1 booking to reschedule and one to cancel. */
let data: {
  confirmed: any;
  hold: any;
  resolution: any;
  toMove: string;
  toCancel: string;
  toCancelLost: string;
  delivery: string;
};

const idem = () => ({ 'idempotency-key': randomUUID() });

/** A pending v1 booking at `time` on `date`, for an attendee with a long e-mail address. */
async function v1Booking(date: string, time: string): Promise<string> {
  const slots = await org.api.get(
    `/api/v1/slots?providerId=${graph.provider.id}&eventTypeId=${graph.service.id}&date=${date}`,
  );
  const slot = slots.body.slots?.find((s: { time: string }) => s.time === time);
  if (!slot) throw new Error(`no slot ${date} ${time}: ${JSON.stringify(slots.body)}`);
  const made = await org.api.post('/api/v1/bookings', {
    providerId: graph.provider.id,
    serviceId: graph.service.id,
    slotId: slot.id,
    attendee: {
      name: 'Maximiliana Bartholomew-Featherstonehaugh',
      email: 'maximiliana.bartholomew-featherstonehaugh@clients.example.com',
      timezone: LONG_ZONE,
    },
  });
  if (made.status !== 200) throw new Error(`create: ${JSON.stringify(made.body)}`);
  return made.body.data.id;
}

test.before(async () => {
  // Webhooks to a loopback URL need the insecure-URL allowance (as in keys-and-webhooks.test.ts); sent to a
  // closed port the deliveries fail and stay in the log.
  [svc, browser] = await Promise.all([
    startTestService({ clock, env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' } }),
    launchBrowser(),
  ]);
  org = await newOrganization(svc, `console-operator-${randomUUID().slice(0, 8)}`);
  const hook = await org.api.put('/api/v2/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  if (hook.status !== 200) throw new Error(`webhook: ${JSON.stringify(hook.body)}`);
  graph = await providerWithService(
    org,
    {
      externalId: 'ana',
      languageCodes: ['es', 'en'],
      licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-ND', status: 'active', expiresAt: '2027-01-31' }],
    },
    { timezone: LONG_ZONE },
  );
  const r = await org.api.post(
    '/api/v2/resolutions',
    { serviceId: graph.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  if (r.status !== 200 || r.body.options.length === 0) throw new Error(`resolution: ${JSON.stringify(r.body)}`);
  const option = r.body.options[0];
  const hold = (
    await org.api.post(`/api/v2/resolutions/${r.body.resolutionId}/options/${option.optionId}/hold`, {
      ttlSeconds: 300,
    })
  ).body;
  const confirmed = await org.api.post(
    `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
    {
      optionId: option.optionId,
      holdId: hold.holdId,
      customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: LONG_ZONE },
      metadata: { note: 'a long metadata value '.repeat(12), nested: { deeper: { list: [1, 2, 3] } } },
    },
    idem(),
  );
  if (confirmed.status !== 200) throw new Error(`confirm: ${JSON.stringify(confirmed.body)}`);
  const toMove = await v1Booking('2026-03-05', '13:00');
  const toCancel = await v1Booking('2026-03-05', '14:00');
  const toCancelLost = await v1Booking('2026-03-05', '15:00');
  const deliveries = await org.platform.get('/api/v2/webhooks/deliveries?limit=1');
  const delivery = deliveries.body.deliveries?.[0]?.id;
  if (!delivery) throw new Error(`no delivery: ${JSON.stringify(deliveries.body)}`);
  data = { confirmed: confirmed.body, hold, resolution: r.body, toMove, toCancel, toCancelLost, delivery };
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  problems = await watchProblems(page);
  await signIn(page, svc.url, svc.platformKey, org.org.id);
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

/** The shared tab at 1280 px with no problems recorded yet. */
async function fresh(): Promise<Page> {
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const list of Object.values(problems)) list.length = 0;
  return page;
}

/** Takes the browser's reports of the failed loads a test caused on purpose (`pattern`): exactly `count` of them. */
function expectedFailures(t: ExecutionContext, pattern: RegExp, count: number): void {
  const expected = problems.consoleErrors.filter((e) => pattern.test(e));
  t.is(expected.length, count, problems.consoleErrors.join('\n'));
  problems.consoleErrors = problems.consoleErrors.filter((e) => !expected.includes(e));
}

function noProblems(t: ExecutionContext): void {
  t.deepEqual(problems.cspViolations, [], 'no CSP violations');
  t.deepEqual(problems.pageErrors, [], 'no page errors');
  t.deepEqual(problems.consoleErrors, [], 'no console errors');
}

/** Goes to a console page through its navigation link, as a person would, and waits for its heading. */
async function viaNavigation(link: string, heading: string | RegExp): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** axe finds nothing serious at 1280 px and at 390 px, where the page is loaded again; back to 1280 px after. */
async function accessibleAtBothWidths(t: ExecutionContext, heading: string | RegExp): Promise<void> {
  t.deepEqual(await seriousAxeFindings(page), [], `axe at 1280 px: ${page.url()}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  t.deepEqual(await seriousAxeFindings(page), [], `axe at 390 px: ${page.url()}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

test.serial('providers: create one with a licence, edit its codes and licences, then deactivate it', async (t) => {
  await fresh();
  await viaNavigation('Providers', 'Providers');
  await page.getByRole('row').filter({ hasText: graph.provider.id }).waitFor();
  t.true((await page.getByRole('row').filter({ hasText: graph.provider.id }).innerText()).includes('psy US-ND active'));
  await accessibleAtBothWidths(t, 'Providers');

  await page.getByRole('link', { name: 'New provider' }).click();
  await page.getByRole('heading', { level: 1, name: 'New provider' }).waitFor();
  await page.getByLabel('Display name').fill('Dr. Beatriz Ortega');
  await page.getByLabel('External id').fill('beatriz');
  await page.getByLabel('Languages').fill('es, EN');
  await page.getByLabel('Time zone').fill('America/Chicago');
  await page.getByRole('button', { name: 'Add a licence' }).click();
  const first = page.getByRole('group', { name: 'Licence 1' });
  await first.getByLabel('Licence type').fill('psy');
  await first.getByLabel('Region').fill('us-il');
  await first.getByLabel('Expires').fill('2026-12-31');
  t.deepEqual(await seriousAxeFindings(page), [], 'the new-provider form with a licence');
  await page.getByRole('button', { name: 'Create provider' }).click();
  await page.getByRole('heading', { level: 1, name: 'Dr. Beatriz Ortega' }).waitFor();
  await page.getByText('Provider created.').waitFor();
  const made = (await org.platform.get('/api/v2/providers?externalId=beatriz')).body.data[0];
  t.like(made, { displayName: 'Dr. Beatriz Ortega', languageCodes: ['es', 'en'], timezone: 'America/Chicago' });
  t.deepEqual(made.licenseRecords, [
    { licenseTypeCode: 'psy', regionCode: 'US-IL', status: 'active', expiresAt: '2026-12-31' },
  ]);
  t.is(new URL(page.url()).pathname, `/console/providers/${made.id}`);

  // Edit: another language, a second licence, the first one removed; the page and the API agree afterwards.
  await page.getByLabel('Languages').fill('es, en, pt');
  await page.getByRole('button', { name: 'Add a licence' }).click();
  const second = page.getByRole('group', { name: 'Licence 2' });
  await second.getByLabel('Licence type').fill('lcsw');
  await second.getByLabel('Region').fill('US-WI');
  await second.getByLabel('Licence status').selectOption('pending');
  await page.getByRole('button', { name: 'Remove licence 1' }).click();
  await page.getByRole('button', { name: 'Save provider' }).click();
  await page.getByText(`Saved: profile version ${made.profileVersion + 1}.`).waitFor();
  const edited = (await org.platform.get(`/api/v2/providers/${made.id}`)).body;
  t.deepEqual(edited.languageCodes, ['es', 'en', 'pt']);
  t.deepEqual(edited.licenseRecords, [{ licenseTypeCode: 'lcsw', regionCode: 'US-WI', status: 'pending' }]);
  t.is(await page.getByRole('group', { name: 'Licence 1' }).getByLabel('Licence type').inputValue(), 'lcsw');
  await saveScreenshot(page, 'provider-edit', { fullPage: true });
  await accessibleAtBothWidths(t, 'Dr. Beatriz Ortega');

  // A refusal shows the API's code and leaves the provider as it was.
  await page.getByLabel('External id').fill('ana');
  await page.getByRole('button', { name: 'Save provider' }).click();
  await page.getByRole('alert').filter({ hasText: 'DUPLICATE_EXTERNAL_ID' }).waitFor();
  t.is((await org.platform.get(`/api/v2/providers/${made.id}`)).body.externalId, 'beatriz');

  await page.getByRole('button', { name: 'Deactivate…' }).click();
  await page.getByRole('button', { name: 'Keep active' }).click();
  t.is((await org.platform.get(`/api/v2/providers/${made.id}`)).body.status, 'active');
  await page.getByRole('button', { name: 'Deactivate…' }).click();
  await page.getByRole('button', { name: 'Deactivate Dr. Beatriz Ortega' }).click();
  await page.getByText('Dr. Beatriz Ortega is deactivated.').waitFor();
  t.like((await org.platform.get(`/api/v2/providers/${made.id}`)).body, { status: 'inactive', searchable: false });
  expectedFailures(t, /status of 409/, 1);
  noProblems(t);
});

test.serial(
  'services: listed by provider; one created through the form, edited, refused, then removed from the list',
  async (t) => {
    await fresh();
    await viaNavigation('Services', 'Services');
    await page.getByRole('row').filter({ hasText: graph.service.id }).waitFor();
    await accessibleAtBothWidths(t, 'Services');
    await page.getByRole('link', { name: 'New service' }).click();
    await page.getByRole('heading', { level: 1, name: 'New service' }).waitFor();
    await page.getByLabel('Provider').selectOption(graph.provider.id);
    await page.getByLabel('Title').fill('Follow-up Session');
    await page.getByLabel('Duration (minutes)').fill('30');
    await page.getByLabel('Price', { exact: true }).fill('85.50');
    await page.getByLabel('Modality').selectOption('virtual');
    await page.getByLabel('Buffer after (minutes)').fill('10');
    t.deepEqual(await seriousAxeFindings(page), [], 'the new-service form');
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.getByRole('heading', { level: 1, name: 'Follow-up Session' }).waitFor();
    const made = (await org.api.get(`/api/v2/services?providerId=${graph.provider.id}&slug=follow-up-session`)).body
      .data[0];
    t.like(made, { duration: 30, price: 8550, currency: 'USD', modality: 'virtual', bufferAfterMinutes: 10 });
    t.is(new URL(page.url()).pathname, `/console/services/${made.id}`);

    // Edit: the form shows the service; a new title, duration and no price are saved (PATCH), and the page agrees.
    t.is(await page.getByLabel('Price', { exact: true }).inputValue(), '85.50');
    t.is(await page.getByLabel('Slot interval (minutes)').inputValue(), '', 'an interval equal to the duration');
    await page.getByLabel('Title').fill('Follow-up Visit');
    await page.getByLabel('Duration (minutes)').fill('45');
    await page.getByLabel('Price', { exact: true }).fill('');
    await page.getByLabel('Currency').fill('');
    await page.getByRole('button', { name: 'Save service' }).click();
    await page.getByText('Service saved.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Follow-up Visit' }).waitFor();
    t.like((await org.api.get(`/api/v2/services/${made.id}`)).body, {
      title: 'Follow-up Visit',
      slug: 'follow-up-visit',
      duration: 45,
      slotIntervalMinutes: 45,
      price: null,
      currency: null,
      modality: 'virtual',
      bufferAfterMinutes: 10,
    });
    await accessibleAtBothWidths(t, 'Follow-up Visit');

    // A refusal shows the API's code and field and leaves the service as it was.
    await page.getByLabel('Title').fill(graph.service.title);
    await page.getByRole('button', { name: 'Save service' }).click();
    await page.getByRole('alert').filter({ hasText: 'DUPLICATE_EXTERNAL_ID' }).waitFor();
    t.is((await org.api.get(`/api/v2/services/${made.id}`)).body.title, 'Follow-up Visit');

    // The list filtered by provider, in the URL; the row's remove action asks once more, then removes it.
    await viaNavigation('Services', 'Services');
    await page.getByLabel('Provider').selectOption(graph.provider.id);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // The unfiltered list already shows the row: the filtered one replaces it once drawn (the table is busy until then).
    await page.waitForURL((u) => u.searchParams.get('providerId') === graph.provider.id);
    await page.locator('.paged:not([aria-busy])').waitFor();
    const row = page.getByRole('row').filter({ hasText: made.id });
    await row.waitFor();
    t.is(
      await row.getByRole('link', { name: 'Edit Follow-up Visit' }).getAttribute('href'),
      `/console/services/${made.id}`,
    );
    await row.getByRole('button', { name: /^Remove Follow-up Visit ?…$/ }).click();
    await row.getByRole('button', { name: 'Keep it' }).click();
    t.is((await org.api.get(`/api/v2/services/${made.id}`)).status, 200);
    await row.getByRole('button', { name: /^Remove Follow-up Visit ?…$/ }).click();
    t.deepEqual(await seriousAxeFindings(page), [], 'the list with a removal to confirm');
    await page.setViewportSize({ width: 390, height: 844 });
    t.deepEqual(await overflowingCards(page), [], '390 px with a removal to confirm');
    await page.setViewportSize({ width: 1280, height: 900 });
    await row.getByRole('button', { name: 'Remove Follow-up Visit', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: graph.service.id }).waitFor();
    t.is((await org.api.get(`/api/v2/services/${made.id}`)).status, 404);
    expectedFailures(t, /status of 409/, 1);
    noProblems(t);
  },
);

test.serial('schedules: weekly hours, an override and a calendar feed created, edited, then deleted', async (t) => {
  await fresh();
  const other = (await org.platform.post('/api/v2/providers', { externalId: 'cy', displayName: 'Dr. Cy' })).body;
  await viaNavigation('Schedules', 'Schedules');
  await page.getByRole('row').filter({ hasText: graph.schedule.id }).waitFor();
  await accessibleAtBothWidths(t, 'Schedules');
  await page.getByRole('link', { name: 'New schedule' }).click();
  await page.getByRole('heading', { level: 1, name: 'New schedule' }).waitFor();
  await page.getByLabel('Provider').selectOption(other.id);
  await page.getByLabel('Title').fill('Clinic hours');
  await page.getByLabel('Time zone').fill('Europe/Madrid');
  await page.getByLabel('Monday windows').fill('09:00-12:00, 13:00-17:00');
  await page.getByLabel('Friday open').uncheck();
  await page.getByLabel('Saturday open').check();
  await page.getByLabel('Saturday windows').fill('10:00-14:00');
  await page.getByLabel('Date overrides').fill('2026-03-10: 08:00-10:00\n2026-03-11: closed');
  await page.getByLabel('Calendar feed (ICS URL)').fill('http://127.0.0.1:9/cy.ics');
  t.deepEqual(await seriousAxeFindings(page), [], 'the new-schedule form');
  await page.getByRole('button', { name: 'Create schedule' }).click();
  await page.getByRole('heading', { level: 1, name: 'Clinic hours' }).waitFor();
  const made = (await org.api.get(`/api/v2/calendar-connections?providerId=${other.id}`)).body.data[0];
  t.like(made, {
    title: 'Clinic hours',
    timezone: 'Europe/Madrid',
    externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/cy.ics' },
  });
  t.deepEqual(made.days.monday, {
    enabled: true,
    slots: [
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ],
  });
  t.false(made.days.friday.enabled);
  t.deepEqual(made.days.saturday, { enabled: true, slots: [{ start: '10:00', end: '14:00' }] });
  t.deepEqual(made.overrides, [
    { date: '2026-03-10', slots: [{ start: '08:00', end: '10:00' }] },
    { date: '2026-03-11', slots: [] },
  ]);
  await accessibleAtBothWidths(t, 'Clinic hours');

  // A window the page cannot read is named before anything is sent; overlapping windows are the API's refusal.
  await page.getByLabel('Tuesday windows').fill('9 to 5');
  await page.getByRole('button', { name: 'Save schedule' }).click();
  await page.getByRole('alert').filter({ hasText: 'Tuesday: “9 to 5”' }).waitFor();
  await page.getByLabel('Tuesday windows').fill('09:00-12:00, 11:00-13:00');
  await page.getByRole('button', { name: 'Save schedule' }).click();
  await page.getByRole('alert').filter({ hasText: 'VALIDATION_ERROR' }).waitFor();
  // Edit: Tuesday shorter, the feed removed.
  await page.getByLabel('Tuesday windows').fill('09:00-11:00');
  await page.getByLabel('Calendar feed (ICS URL)').fill('');
  await page.getByRole('button', { name: 'Save schedule' }).click();
  await page.getByText('Schedule saved.').waitFor();
  const edited = (await org.api.get(`/api/v2/calendar-connections/${made.id}`)).body;
  t.deepEqual(edited.days.tuesday, { enabled: true, slots: [{ start: '09:00', end: '11:00' }] });
  t.is(edited.externalCalendar, null);
  t.deepEqual(edited.days.monday, made.days.monday, 'the other days as they were');

  await page.getByRole('button', { name: 'Delete schedule…' }).click();
  await page.getByRole('button', { name: 'Delete this schedule' }).click();
  await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
  t.is((await org.api.get(`/api/v2/calendar-connections/${made.id}`)).status, 404);
  expectedFailures(t, /status of 400/, 1);
  noProblems(t);
});

/** The Idempotency-Key headers of the requests to `path` the page made. */
function keysOf(requests: Request[], path: string): string[] {
  return requests.filter((r) => new URL(r.url()).pathname === path).map((r) => r.headers()['idempotency-key'] ?? '');
}

test.serial(
  'booking: a reschedule whose answer was lost is retried with the same Idempotency-Key and moves it once; a cancel too',
  async (t) => {
    await fresh();
    const requests: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') requests.push(r);
    });
    const movePath = `/api/v1/bookings/${data.toMove}/reschedule`;
    // The first attempt reaches the service, which moves the booking; its answer is lost on the way back.
    const answers: { status: number; replayed: string | undefined }[] = [];
    await page.route(
      `**${movePath}`,
      async (route) => {
        const res = await route.fetch();
        answers.push({ status: res.status(), replayed: res.headers()['idempotent-replayed'] });
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === movePath)
        answers.push({ status: res.status(), replayed: res.headers()['idempotent-replayed'] });
    });
    await page.goto(`${svc.url}/console/bookings/${data.toMove}`);
    await page.getByRole('heading', { level: 1, name: `Booking ${data.toMove}` }).waitFor();
    await accessibleAtBothWidths(t, `Booking ${data.toMove}`);
    await saveScreenshot(page, 'booking-actions', { fullPage: true });
    await page.getByLabel('Date').fill('2026-03-04');
    await page.getByLabel('Time', { exact: true }).selectOption('10:00');
    await page.getByRole('button', { name: 'Reschedule booking' }).click();
    await page.getByRole('form', { name: 'Reschedule' }).getByRole('alert').waitFor();
    // The person tries again: same action, same key; the service answers the first outcome.
    await page.getByRole('button', { name: 'Reschedule booking' }).click();
    const moved = page.getByRole('status').filter({ hasText: 'Booking rescheduled' });
    await moved.waitFor();
    const keys = keysOf(requests, movePath);
    t.is(keys.length, 2);
    t.truthy(keys[0]);
    t.is(keys[1], keys[0], 'the retry carries the first attempt’s key');
    t.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    t.is(answers[1]!.replayed, 'true', 'the second answer is the first one replayed');
    const original = (await org.api.get(`/api/v2/bookings/${data.toMove}`)).body;
    t.is(original.status, 'rescheduled');
    const newId = original.rescheduledTo;
    t.truthy(newId);
    t.true((await moved.innerText()).includes(newId));
    const children = (await org.api.get('/api/v2/bookings?limit=100')).body.data.filter(
      (b: any) => b.rescheduledFrom === data.toMove,
    );
    t.is(children.length, 1, 'moved once');
    t.true((await page.locator('[data-booking-actions="closed"]').innerText()).includes('rescheduled'));

    // Cancel: the first attempt never reaches the service; the retry carries the same key and cancels.
    const cancelPath = `/api/v1/bookings/${data.toCancel}/cancel`;
    await page.route(`**${cancelPath}`, (route) => route.abort('connectionrefused'), { times: 1 });
    await page.goto(`${svc.url}/console/bookings/${data.toCancel}`);
    await page.getByRole('heading', { level: 1, name: `Booking ${data.toCancel}` }).waitFor();
    await page.getByLabel('Reason (optional)').fill('The client asked to cancel.');
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('form', { name: 'Cancel' }).getByRole('alert').waitFor();
    t.is((await org.api.get(`/api/v2/bookings/${data.toCancel}`)).body.status, 'pending', 'nothing reached it');
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('status').filter({ hasText: 'Booking cancelled' }).waitFor();
    const cancelKeys = keysOf(requests, cancelPath);
    t.is(cancelKeys.length, 2);
    t.is(cancelKeys[1], cancelKeys[0]);
    t.not(cancelKeys[0], keys[0], 'another action, another key');
    t.is((await org.api.get(`/api/v2/bookings/${data.toCancel}`)).body.status, 'cancelled');

    // A cancel whose answer was lost: its retry carries the same key and is answered with the first cancellation
    // (the route keeps the answer with the key), so the page shows it cancelled, once.
    const lostPath = `/api/v1/bookings/${data.toCancelLost}/cancel`;
    await page.route(
      `**${lostPath}`,
      async (route) => {
        await route.fetch();
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    await page.goto(`${svc.url}/console/bookings/${data.toCancelLost}`);
    await page.getByRole('heading', { level: 1, name: `Booking ${data.toCancelLost}` }).waitFor();
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('form', { name: 'Cancel' }).getByRole('alert').waitFor();
    t.is((await org.api.get(`/api/v2/bookings/${data.toCancelLost}`)).body.status, 'cancelled', 'it reached it');
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('status').filter({ hasText: 'Booking cancelled' }).waitFor();
    const lostKeys = keysOf(requests, lostPath);
    t.is(lostKeys.length, 2);
    t.is(lostKeys[1], lostKeys[0], 'the retry carries the same key');
    t.is((await org.api.get(`/api/v2/bookings/${data.toCancelLost}`)).body.status, 'cancelled');
    // The three attempts cut on purpose are the only failed loads the browser reports.
    expectedFailures(t, /net::ERR_CONNECTION_(RESET|REFUSED)/, 3);
    noProblems(t);
  },
);

test.serial("inspector: a cancelled booking's `complete` and a consumed hold's `expire` are not pending", async (t) => {
  await fresh();
  const b = data.confirmed;
  const before = (await org.api.get(`/api/v2/inspector/actors/booking/${b.id}`)).body;
  t.deepEqual(
    before.timers.map((x: any) => [x.event, x.pending]),
    [['complete', true]],
    'a confirmed booking waits for its end',
  );
  const cancelled = await org.api.post(`/api/v1/bookings/${b.id}/cancel`, { reason: 'test' });
  t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
  const after = (await org.api.get(`/api/v2/inspector/actors/booking/${b.id}`)).body;
  t.like(after, { state: 'cancelled', status: 'done' });
  t.deepEqual(
    after.timers.map((x: any) => [x.event, x.pending]),
    [['complete', false]],
  );
  const hold = (await org.api.get(`/api/v2/inspector/actors/hold/${data.hold.holdId}`)).body;
  t.like(hold, { state: 'consumed', status: 'done' });
  t.deepEqual(
    hold.timers.map((x: any) => [x.event, x.pending]),
    [['expire', false]],
  );

  for (const [kind, id, timer] of [
    ['booking', b.id, 'complete'],
    ['hold', data.hold.holdId, 'expire'],
  ] as const) {
    await page.goto(`${svc.url}/console/inspector/${kind}/${id}`);
    await page.getByRole('heading', { level: 1, name: `${kind} ${id}` }).waitFor();
    const timers = page.getByRole('table', { name: `Durable timers of ${kind} ${id}` });
    const row = timers.getByRole('row').filter({ hasText: timer });
    await row.waitFor();
    t.regex(await row.innerText(), /not needed/, `${kind}'s ${timer}`);
    t.is(await timers.getByText('pending', { exact: true }).count(), 0);
    t.deepEqual(await overflowingCards(page), [], `1280 px: ${page.url()}`);
    await page.setViewportSize({ width: 390, height: 844 });
    t.deepEqual(await overflowingCards(page), [], `390 px: ${page.url()}`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  noProblems(t);
});

test.serial('audit log: reads hidden by default; "Show reads" lists them, kept in the URL', async (t) => {
  await fresh();
  await viaNavigation('Audit log', 'Audit log');
  const events = page.getByRole('table', { name: 'Audit events, newest first' });
  await events.getByRole('row').filter({ hasText: 'booking.cancel' }).first().waitFor();
  const api = (await org.platform.get('/api/v2/audit-events?limit=500')).body.data as any[];
  const reads = api.filter((e) => e.action.endsWith('.read') || e.action.endsWith('.list'));
  t.true(reads.length > 10, `the console's own reads are recorded: ${reads.length}`);
  const shown = await events.locator('tbody tr td:nth-child(2)').allInnerTexts();
  t.true(shown.includes('provider.create') && shown.includes('booking.reschedule'), shown.join(' '));
  t.false(
    shown.some((a) => a.endsWith('.read') || a.endsWith('.list')),
    `no read listed: ${shown.join(' ')}`,
  );
  t.regex(await page.locator('[data-hidden-reads]').innerText(), /^\d+ read events hidden so far/);
  await accessibleAtBothWidths(t, 'Audit log');

  await page.getByLabel('Show reads').check();
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await events.getByRole('row').filter({ hasText: 'booking.read' }).first().waitFor();
  t.is(new URL(page.url()).searchParams.get('reads'), 'shown');
  await page.reload();
  await events.getByRole('row').filter({ hasText: 'booking.read' }).first().waitFor();
  t.true(await page.getByLabel('Show reads').isChecked());
  await page.getByRole('button', { name: 'Clear' }).click();
  await events.getByRole('row').filter({ hasText: 'booking.read' }).first().waitFor({ state: 'detached' });
  t.false(await page.getByLabel('Show reads').isChecked());
  t.is(new URL(page.url()).searchParams.get('reads'), null);
  noProblems(t);
});

test.serial('no element is wider than its card at 1280 and 390 px on the main pages', async (t) => {
  await fresh();
  const paths = [
    ['/console', org.org.name],
    ['/console/providers', 'Providers'],
    [`/console/providers/${graph.provider.id}`, graph.provider.displayName],
    ['/console/providers/new', 'New provider'],
    ['/console/services', 'Services'],
    [`/console/services/${graph.service.id}`, graph.service.title],
    ['/console/services/new', 'New service'],
    ['/console/schedules', 'Schedules'],
    [`/console/schedules/${graph.schedule.id}`, /./],
    ['/console/schedules/new', 'New schedule'],
    ['/console/resolutions', 'Resolutions'],
    [`/console/resolutions/${data.resolution.resolutionId}`, /^Resolution /],
    ['/console/bookings', 'Bookings'],
    [`/console/bookings/${data.confirmed.id}`, /^Booking /],
    [`/console/bookings/${data.toCancel}`, /^Booking /],
    [`/console/inspector/booking/${data.confirmed.id}`, /^booking /],
    ['/console/audit', 'Audit log'],
    ['/console/events', 'Events'],
    ['/console/webhooks', 'Webhooks'],
    [`/console/webhooks/deliveries/${data.delivery}`, /./],
    ['/console/manual-review', 'Manual review'],
    ['/console/api-keys', /API keys/],
  ] as const;
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const [path, heading] of paths) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
      // Pages that draw or list after their heading: let them settle (a live inspector never idles: 1.5 s at most).
      await page.waitForLoadState('networkidle', { timeout: 1500 }).catch(() => undefined);
      t.deepEqual(await overflowingCards(page), [], `${width} px: ${path}`);
    }
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${svc.url}/console/bookings/${data.toCancel}`);
  await page.getByRole('heading', { level: 1, name: /^Booking / }).waitFor();
  await saveScreenshot(page, 'booking-phone', { fullPage: true });
  noProblems(t);
});
