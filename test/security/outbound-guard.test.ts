import test, { type ExecutionContext } from 'ava';
import { ServiceError } from '../../src/errors/service-error.js';
import type { CalendarConnection } from '../../src/domain/provider.js';
import { classifyAddress } from '../../src/application/outbound/classify-address.js';
import { checkOutboundUrl } from '../../src/application/outbound/check-outbound-url.js';
import { createWebhookPoster } from '../../src/application/webhooks/post-webhook.js';
import { createCalendarFeeds, type FeedIncident } from '../../src/application/resolution/calendar-feeds.js';
import { checkFeedUrl, createFeedClient } from '../../src/application/resolution/feed-client.js';
import { FEED_REASONS } from '../../src/application/resolution/feed-failure-reason.js';
import type { CountingServer } from '../helpers/counting-server.js';
import {
  ADDRESSES,
  classifyWithStandIn,
  LOOPBACK_HOSTS,
  OTHER_FORBIDDEN_HOSTS,
  STAND_IN_PUBLIC,
  testLookup,
} from './forbidden-targets.js';
import { INTERNAL_MARKER, startFeedServer, startMetricsTarget } from './feed-servers.js';

// The one guard behind every outbound call, run over the same table of forbidden targets for webhook sends and feed
// fetches, at configuration and at connection. `target` stands for an internal endpoint on this machine (127.0.0.1
// and [::1]); no test may ever reach it. `feeds` is the allowed host of the redirect tests (STAND_IN_PUBLIC, a loopback
// address the guard is told to treat as public; nothing else is).
let target: CountingServer;
let feedServer: Awaited<ReturnType<typeof startFeedServer>>;
const poster = createWebhookPoster({ allowInsecure: false, lookup: testLookup });
const insecurePoster = createWebhookPoster({ allowInsecure: true, lookup: testLookup });
const feeds = createCalendarFeeds({
  clock: () => new Date('2026-03-02T12:00:00Z'),
  client: createFeedClient({ allowInsecure: false, lookup: testLookup, classify: classifyWithStandIn }),
});
const insecureFeeds = createCalendarFeeds({
  clock: () => new Date('2026-03-02T12:00:00Z'),
  client: createFeedClient({ allowInsecure: true, lookup: testLookup }),
});

test.before(async () => {
  [target, feedServer] = await Promise.all([startMetricsTarget(), startFeedServer()]);
});
test.after.always(async () => {
  poster.close();
  insecurePoster.close();
  await Promise.all([target?.stop(), feedServer?.stop()]);
});

let connectionCount = 0;
/** Fetches one feed through the calendar feeds as a resolution does; answers its state and the incident reported. */
async function fetchFeed(url: string, through = feeds) {
  const c: CalendarConnection = {
    id: `cal_guard_${++connectionCount}`,
    organizationId: 'org_guard',
    providerId: `prv_guard_${connectionCount}`,
    timezone: 'UTC',
    days: {},
    overrides: [],
    externalCalendar: { type: 'ics', url },
    status: 'active',
  };
  const incidents: FeedIncident[] = [];
  const state = (await through.states([c], incidents)).get(c.providerId)!;
  return { state: state.state, reason: incidents[0]?.reason, incidents };
}

/** Asserts `check` throws a 400 VALIDATION_ERROR on `field` with detail code `code`. */
async function refusedAtConfiguration(t: ExecutionContext, check: Promise<void>, field: string, code: string) {
  const err = await t.throwsAsync(check);
  t.true(err instanceof ServiceError, String(err));
  const e = err as ServiceError;
  t.is(e.code, 'VALIDATION_ERROR');
  t.is(e.field, field);
  t.is(e.details?.[0]?.field, field);
  t.is(e.details?.[0]?.code, code, e.message);
}

for (const [address, cls] of ADDRESSES) {
  test(`classifyAddress(${address}) is ${cls}`, (t) => {
    t.is(classifyAddress(address), cls);
  });
}

for (const [host, why] of [...LOOPBACK_HOSTS, ...OTHER_FORBIDDEN_HOSTS]) {
  test(`${why} (${host}): refused at configuration and at every connection, for webhooks and feeds alike`, async (t) => {
    const port = target.port;
    const strict = { allowInsecure: false, lookup: testLookup };
    await refusedAtConfiguration(
      t,
      checkOutboundUrl(`https://${host}:${port}/hook`, { ...strict, field: 'url' }),
      'url',
      'FORBIDDEN_ADDRESS',
    );
    await refusedAtConfiguration(
      t,
      checkFeedUrl(`http://${host}:${port}/metrics`, strict),
      'externalCalendar.url',
      'FORBIDDEN_ADDRESS',
    );

    const sent = await poster.post(`https://${host}:${port}/hook`, '{}', {});
    t.is(sent.statusCode, null);
    t.regex(sent.error ?? '', /^refused to connect: /);

    for (const url of [`http://${host}:${port}/metrics`, `https://${host}:${port}/metrics`]) {
      const fetched = await fetchFeed(url);
      t.is(fetched.state, 'unverifiable', url);
      t.is(fetched.reason, FEED_REASONS.notAllowed, url);
    }
    t.is(target.connections(), 0, 'nothing connected to the internal target');
  });
}

for (const [host, why] of LOOPBACK_HOSTS) {
  test(`a 302 from an allowed host to ${why} (${host}): not followed by webhooks, refused at the hop by feeds`, async (t) => {
    const to = encodeURIComponent(`http://${host}:${target.port}/metrics`);
    const from = `http://${STAND_IN_PUBLIC}:${feedServer.port}/redirect?to=${to}`;
    const sent = await insecurePoster.post(from, '{}', {});
    t.is(sent.statusCode, 302);
    t.regex(sent.error ?? '', /redirects are not followed/);

    const served = feedServer.paths.length;
    const fetched = await fetchFeed(from);
    t.true(feedServer.paths.length > served, 'the allowed host was asked');
    t.is(fetched.state, 'unverifiable');
    t.is(fetched.reason, FEED_REASONS.redirectNotAllowed);
    t.false(JSON.stringify(fetched.incidents).includes(INTERNAL_MARKER));
    t.is(target.connections(), 0, 'nothing connected to the internal target');
  });
}

test('a feed follows up to 3 redirects between allowed hosts, each hop checked; a 4th is refused', async (t) => {
  const base = `http://${STAND_IN_PUBLIC}:${feedServer.port}`;
  const viaName = await fetchFeed(
    `${base}/redirect?to=${encodeURIComponent(`http://allowed.test:${feedServer.port}/feed.ics`)}`,
  );
  t.is(viaName.state, 'ok', viaName.reason);
  t.is((await fetchFeed(`${base}/hops?n=3`)).state, 'ok');
  const tooMany = await fetchFeed(`${base}/hops?n=4`);
  t.is(tooMany.state, 'unverifiable');
  t.is(tooMany.reason, FEED_REASONS.tooManyRedirects);
  const toCredentials = await fetchFeed(
    `${base}/redirect?to=${encodeURIComponent(`http://:@${STAND_IN_PUBLIC}:${feedServer.port}/feed.ics`)}`,
  );
  t.is(toCredentials.reason, FEED_REASONS.redirectNotAllowed);
  const toFtp = await fetchFeed(`${base}/redirect?to=${encodeURIComponent('ftp://allowed.test/feed.ics')}`);
  t.is(toFtp.reason, FEED_REASONS.redirectNotAllowed);
});

const USERINFO_URLS = [
  'https://a@hooks.test/x',
  'https://:@hooks.test/x',
  'https://@hooks.test/x',
  'https://user:pw@hooks.test/x',
  'https://:pw@hooks.test/x',
  'https:\\\\:@hooks.test/x',
  'https:/:@hooks.test/x',
  'https://%20@hooks.test/x',
];
for (const url of USERINFO_URLS) {
  test(`a URL with user info (${url}) is refused for webhooks and feeds, insecure URLs allowed or not`, async (t) => {
    for (const allowInsecure of [false, true]) {
      await refusedAtConfiguration(
        t,
        checkOutboundUrl(url, { field: 'url', allowInsecure, lookup: testLookup }),
        'url',
        'CREDENTIALS_IN_URL',
      );
      await refusedAtConfiguration(
        t,
        checkFeedUrl(url, { allowInsecure, lookup: testLookup }),
        'externalCalendar.url',
        'CREDENTIALS_IN_URL',
      );
    }
    // At connection too, even where insecure URLs are allowed: aimed at the internal target, nothing connects.
    const local = url.replace('https:', 'http:').replace('hooks.test', `127.0.0.1:${target.port}`);
    const sent = await insecurePoster.post(local, '{}', {});
    t.regex(sent.error ?? '', /refused to connect: the URL carries a user name or password/);
    t.is((await fetchFeed(local, insecureFeeds)).reason, FEED_REASONS.notAllowed);
    t.is(target.connections(), 0, 'nothing connected to the internal target');
  });
}
