import test from 'ava';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

// Busy time that leaves a provider's calendar frees time for the waitlist: an event gone from the ICS feed at its next
// refresh, or a calendar connection deleted. A real local HTTP server serves the feeds; real PostgreSQL and Redis.
const clock = createTestClock('2026-03-02T12:00:00Z');
/** The body each feed path answers now; the test edits it. */
const feeds = new Map<string, string>();
let server: Server;
let base = '';
let svc: TestService;

/** A feed with the given busy events (UTC instants). */
const calendar = (events: { start: string; end: string }[]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Waitlist feeds//EN',
    ...events.flatMap((e, i) => [
      'BEGIN:VEVENT',
      `UID:busy-${i}@example.test`,
      'DTSTAMP:20260201T120000Z',
      `DTSTART:${e.start}`,
      `DTEND:${e.end}`,
      'SUMMARY:Busy',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

test.before(async () => {
  server = createServer((req, res) => {
    const body = feeds.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  // The feeds are served from 127.0.0.1, which only OUTBOUND_ALLOW_INSECURE_URLS lets the service reach.
  svc = await startTestService({ clock, env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
});
test.after.always(async () => {
  await svc?.stop();
  server?.close();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const db = () => svc.service.deps.db;

/** Polls `read` (the workers run on their own) until `done` holds; fails after 15 s. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const entry = async (o: { api: any }, id: string) =>
  ((await o.api.get('/api/v2/waitlist?limit=500')).body.data as any[]).find((e) => e.id === id);
const offeredEvents = async (orgId: string) =>
  (await db().query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'waitlist.offered'`, [orgId])).rows;

// 10:00 New York on Tuesday 3 March.
const TEN = { start: '20260303T150000Z', end: '20260303T160000Z' };
const TEN_ISO = '2026-03-03T15:00:00.000Z';

test.serial('an event gone from the ICS feed at its next refresh is offered to the waiting entry', async (t) => {
  const o = await newOrganization(svc, `feed-freed-${randomUUID().slice(0, 8)}`);
  const path = `/feed-${randomUUID()}.ics`;
  feeds.set(path, calendar([TEN]));
  const p = await providerWithService(
    o,
    { externalId: 'feedy' },
    { schedule: { externalCalendar: { type: 'ics', url: `${base}${path}` } } },
  );
  const resolve = () =>
    o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 10 },
      idem(),
    );
  const first = await resolve();
  t.is(first.status, 200, JSON.stringify(first.body));
  t.false(
    first.body.options.some((x: any) => x.slot.start === TEN_ISO),
    'the feed makes 10:00 busy',
  );
  const waiting = (
    await o.api.post('/api/v2/waitlist', {
      serviceId: p.service.id,
      customer: { name: 'W', email: 'w@example.com' },
    })
  ).body;

  // A refresh that still lists the event frees nothing.
  clock.advance(6 * 60_000);
  await resolve();
  t.is((await db().query('SELECT 1 FROM waitlist_offer_jobs WHERE organization_id = $1', [o.org.id])).rowCount, 0);
  t.is((await offeredEvents(o.org.id)).length, 0);
  t.is((await entry(o, waiting.id)).status, 'waiting');

  // The event is cancelled in the external calendar: the next refresh (any resolution reading the feed) frees it.
  feeds.set(path, calendar([]));
  clock.advance(6 * 60_000);
  const after = await resolve();
  t.true(
    after.body.options.some((x: any) => x.slot.start === TEN_ISO),
    '10:00 is free now',
  );
  const offered = await eventually(
    () => entry(o, waiting.id),
    (e) => e.status === 'offered',
    'the offer of the freed hour',
  );
  t.like(offered.offer, { providerId: p.provider.id, slotStart: TEN_ISO });
  const events = await offeredEvents(o.org.id);
  t.is(events.length, 1);
  t.like(events[0].data, { entryId: waiting.id, slotStart: TEN_ISO });
  const hold = await o.api.get(
    `/api/v2/resolutions/${offered.offer.resolutionId}/options/${offered.offer.optionId}/hold`,
  );
  t.like(hold.body, { holdId: offered.offer.holdId, status: 'active' });
});

test.serial('a calendar connection deleted queues its provider’s time: the waiting entry is offered', async (t) => {
  const o = await newOrganization(svc, `conn-deleted-${randomUUID().slice(0, 8)}`);
  const path = `/feed-${randomUUID()}.ics`;
  feeds.set(path, calendar([TEN]));
  const p = await providerWithService(o, { externalId: 'two-calendars' });
  // A newer connection with the same hours and a feed: the newest connection is the provider's schedule.
  const withFeed = await o.api.post('/api/v2/calendar-connections', {
    providerId: p.provider.id,
    timezone: p.schedule.timezone,
    days: p.schedule.days,
    externalCalendar: { type: 'ics', url: `${base}${path}` },
  });
  t.is(withFeed.status, 200, JSON.stringify(withFeed.body));
  const waiting = (
    await o.api.post('/api/v2/waitlist', {
      serviceId: p.service.id,
      customer: { name: 'W', email: 'w@example.com' },
    })
  ).body;
  // Nothing freed yet: the entry waits.
  await new Promise((r) => setTimeout(r, 600));
  t.is((await entry(o, waiting.id)).status, 'waiting');

  t.is((await o.api.delete(`/api/v2/calendar-connections/${withFeed.body.id}`)).status, 200);
  const offered = await eventually(
    () => entry(o, waiting.id),
    (e) => e.status === 'offered',
    'the offer after the connection was deleted',
  );
  t.like(offered.offer, { providerId: p.provider.id });
  t.is((await offeredEvents(o.org.id)).length, 1);
});
