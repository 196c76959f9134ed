import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { CalendarConnection } from '../../src/domain/provider.js';
import { createCalendarFeeds, type FeedIncident } from '../../src/application/resolution/calendar-feeds.js';
import { createFeedClient, FEED_MAX_BYTES } from '../../src/application/resolution/feed-client.js';
import { FEED_REASONS, isFeedReason, type FeedReason } from '../../src/application/resolution/feed-failure-reason.js';
import type { CountingServer } from '../helpers/counting-server.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { classifyWithStandIn, STAND_IN_PUBLIC, testLookup } from './forbidden-targets.js';
import { INTERNAL_MARKER, startFeedServer, startMetricsTarget } from './feed-servers.js';

// Calendar feeds are fetched by the guarded outbound client: a size cap, iCalendar media types only, and reasons from
// a fixed vocabulary. The allowed feed host is STAND_IN_PUBLIC (a loopback address the test's classifier treats as
// public); the end-to-end part runs a whole service WITHOUT OUTBOUND_ALLOW_INSECURE_URLS against its own /metrics.
let feedServer: Awaited<ReturnType<typeof startFeedServer>>;
let target: CountingServer;
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
const feeds = createCalendarFeeds({
  clock: () => new Date('2026-03-02T12:00:00Z'),
  client: createFeedClient({ allowInsecure: false, lookup: testLookup, classify: classifyWithStandIn }),
});

test.before(async () => {
  [feedServer, target, svc] = await Promise.all([
    startFeedServer(),
    startMetricsTarget(),
    startTestService({ clock, outboundLookup: testLookup }),
  ]);
});
test.after.always(async () => {
  await Promise.all([feedServer?.stop(), target?.stop(), svc?.stop()]);
});

let connectionCount = 0;
/** Fetches one feed of the allowed host through the calendar feeds; answers its state and the incidents reported. */
async function fetchFeed(path: string) {
  const c: CalendarConnection = {
    id: `cal_ssrf_${++connectionCount}`,
    organizationId: 'org_ssrf',
    providerId: `prv_ssrf_${connectionCount}`,
    timezone: 'UTC',
    days: {},
    overrides: [],
    externalCalendar: { type: 'ics', url: `http://${STAND_IN_PUBLIC}:${feedServer.port}${path}` },
    status: 'active',
  };
  const incidents: FeedIncident[] = [];
  const state = (await feeds.states([c], incidents)).get(c.providerId)!;
  return { state: state.state, reason: incidents[0]?.reason, type: incidents[0]?.type, incidents };
}

test('a feed over 5 MB is refused and not read on: by its Content-Length, and while it streams', async (t) => {
  t.is(FEED_MAX_BYTES, 5 * 1024 * 1024);
  const declared = await fetchFeed('/big');
  t.is(declared.state, 'unverifiable');
  t.is(declared.reason, FEED_REASONS.tooLarge);
  const streamed = await fetchFeed('/stream');
  t.is(streamed.state, 'unverifiable');
  t.is(streamed.reason, FEED_REASONS.tooLarge);
  const sending = new Promise<string>((r) => setTimeout(() => r('still sending after 5 s'), 5000).unref());
  t.is(await Promise.race([feedServer.streamAborted.then(() => 'hung up'), sending]), 'hung up');
});

test('a feed served as html, json, plain text, octet-stream or no type is refused; iCalendar types are read', async (t) => {
  for (const type of [
    'text/html',
    'application/json',
    'text/plain; version=0.0.4',
    'application/octet-stream',
    'none',
  ]) {
    const r = await fetchFeed(`/feed.ics?type=${encodeURIComponent(type)}`);
    t.is(r.state, 'unverifiable', type);
    t.is(r.reason, FEED_REASONS.notCalendar, type);
  }
  for (const type of ['text/calendar', 'text/calendar; charset=utf-8', 'TEXT/Calendar', 'application/ics']) {
    t.is((await fetchFeed(`/feed.ics?type=${encodeURIComponent(type)}`)).state, 'ok', type);
  }
});

test('reasons shown to tenants come from a fixed vocabulary: never the body, the status text or the status code', async (t) => {
  const junk = await fetchFeed('/junk');
  t.is(junk.reason, FEED_REASONS.invalid);
  const cases: [string, FeedIncident['type'], FeedReason][] = [
    ['/status?code=500', 'calendar.connection_degraded', FEED_REASONS.serverError],
    ['/status?code=418', 'calendar.connection_degraded', FEED_REASONS.clientError],
    ['/status?code=403', 'calendar.reconnect_required', FEED_REASONS.accessRevoked],
    ['/status?code=302', 'calendar.connection_degraded', FEED_REASONS.unexpectedStatus],
  ];
  const results = [junk];
  for (const [path, type, reason] of cases) {
    const r = await fetchFeed(path);
    t.is(r.type, type, path);
    t.is(r.reason, reason, path);
    results.push(r);
  }
  for (const r of results) t.true(r.reason !== undefined && isFeedReason(r.reason), r.reason);
  const all = JSON.stringify(results.map((r) => r.incidents.map((i) => i.reason)));
  t.false(all.includes(INTERNAL_MARKER));
  t.false(/process_cpu|# HELP|invalid line|Broken|\b(500|418|403|302)\b/.test(all), all);
});

/** The service's own metrics endpoint in the forms of the issue. */
const metricsUrls = (port: number) => [
  `http://127.0.0.1:${port}/metrics`,
  `http://2130706433:${port}/metrics`,
  `http://[::ffff:127.0.0.1]:${port}/metrics`,
  `http://localhost:${port}/metrics`,
  `http://loopback.test:${port}/metrics`,
];

test('end to end, without the insecure switch: a feed URL at the service’s own /metrics is refused at configuration (400, nothing stored) and at connection (a reason quoting nothing)', async (t) => {
  const port = Number(new URL(svc.url).port);
  const o = await newOrganization(svc, `ssrf-${randomUUID().slice(0, 6)}`);
  const p = await providerWithService(o, { externalId: 'ssrf' });
  const rows = async () =>
    (await svc.service.deps.db.query('SELECT id, doc FROM calendar_connections WHERE organization_id = $1', [o.org.id]))
      .rows;
  const before = await rows();

  const bad: [string, string][] = [
    ...metricsUrls(port).map((u): [string, string] => [u, 'FORBIDDEN_ADDRESS']),
    [`http://127.0.0.1:${target.port}/metrics`, 'FORBIDDEN_ADDRESS'],
    ['https://:@calendar.test/feed.ics', 'CREDENTIALS_IN_URL'],
  ];
  for (const [url, code] of bad) {
    const created = await o.api.post('/api/v2/calendar-connections', {
      providerId: p.provider.id,
      timezone: 'UTC',
      days: { monday: { enabled: true, slots: [{ start: '09:00', end: '17:00' }] } },
      externalCalendar: { type: 'ics', url },
    });
    t.is(created.status, 400, url);
    t.is(created.body.error?.code, 'VALIDATION_ERROR', url);
    t.is(created.body.error?.field, 'externalCalendar.url', url);
    t.is(created.body.error?.details?.[0]?.code, code, url);
    const patched = await o.api.patch(`/api/v2/calendar-connections/${p.schedule.id}`, {
      externalCalendar: { type: 'ics', url },
    });
    t.is(patched.status, 400, url);
    t.is(patched.body.error?.field, 'externalCalendar.url', url);
  }
  t.deepEqual(await rows(), before, 'nothing stored or changed');

  // Rows saved before the guard existed (or while the switch was on) are refused where the feed is fetched.
  const stored = [...metricsUrls(port), `http://127.0.0.1:${target.port}/metrics`];
  const providers = [p];
  for (let i = 1; i < stored.length; i++) providers.push(await providerWithService(o, { externalId: `ssrf-${i}` }));
  for (const [i, url] of stored.entries()) {
    await svc.service.deps.db.query(
      `UPDATE calendar_connections SET doc = jsonb_set(doc, '{externalCalendar}', $2::jsonb) WHERE id = $1`,
      [providers[i]!.schedule.id, JSON.stringify({ type: 'ics', url })],
    );
  }
  await svc.service.deps.db.query('UPDATE organizations SET graph_version = graph_version + 1 WHERE id = $1', [
    o.org.id,
  ]);
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    { 'idempotency-key': randomUUID() },
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  const events = (
    await svc.service.deps.db.query(
      "SELECT data FROM events WHERE organization_id = $1 AND type LIKE 'calendar.%' ORDER BY data->>'calendarConnectionId'",
      [o.org.id],
    )
  ).rows.map((row) => row.data);
  t.is(events.length, stored.length);
  for (const e of events) t.is(e.reason, FEED_REASONS.notAllowed);
  const text = JSON.stringify(events);
  t.false(/# HELP|process_|HTTP|127\.0\.0\.1|metrics|invalid line/.test(text), text);
  t.is(target.connections(), 0, 'nothing connected to the internal target');
});
