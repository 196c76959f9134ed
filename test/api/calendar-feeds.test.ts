import test from 'ava';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

// A real local HTTP server serving real iCalendar files; each path has a mode the test switches.
const ics = readFileSync(new URL('../fixtures/ics/weekly-recurring.ics', import.meta.url), 'utf8');
const modes = new Map<string, 'ok' | 'fail' | 'auth'>();
let server: Server;
let base = '';
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  server = createServer((req, res) => {
    const mode = modes.get(req.url ?? '') ?? 'fail';
    if (mode === 'ok') {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.end(ics);
      return;
    }
    res.writeHead(mode === 'auth' ? 401 : 500);
    res.end();
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
const events = async (orgId: string, type: string) =>
  (
    await svc.service.deps.db.query('SELECT data FROM events WHERE organization_id = $1 AND type = $2', [orgId, type])
  ).rows.map((r) => r.data);

test.serial(
  'feed busy time blocks slots; a failing feed degrades, then goes stale; calendar errors are never free time',
  async (t) => {
    const o = await newOrganization(svc, `feed-${randomUUID().slice(0, 6)}`);
    const path = `/feed-${randomUUID()}.ics`;
    modes.set(path, 'ok');
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
    t.is(first.body.status, 'resolved');
    const starts = first.body.options.map((o: any) => o.slot.start);
    t.false(starts.includes('2026-03-03T15:00:00.000Z'), 'the recurring 10:00 New York event is busy');
    t.true(starts.includes('2026-03-03T14:00:00.000Z'));
    t.true(first.body.options.every((o: any) => o.availabilityStatus === 'verified_available'));

    modes.set(path, 'fail');
    clock.advance(6 * 60_000);
    const degraded = await resolve();
    t.is(degraded.body.status, 'resolved', 'a failed refresh keeps a cached copy younger than 15 minutes');
    t.is((await events(o.org.id, 'calendar.connection_degraded')).length, 1);
    t.like((await events(o.org.id, 'calendar.connection_degraded'))[0], {
      providerId: p.provider.id,
      calendarConnectionId: p.schedule.id,
    });

    clock.advance(10 * 60_000);
    const stale = await resolve();
    t.is(stale.body.status, 'zero_results');
    t.deepEqual(stale.body.exclusionSummary, { NO_VERIFIED_AVAILABILITY: 1 });
    const cands = await o.api.get(`/api/v2/resolutions/${stale.body.resolutionId}/candidates`);
    t.like(cands.body.candidates[0].exclusions[0], { code: 'NO_VERIFIED_AVAILABILITY', actual: ['stale'] });
    t.is((await events(o.org.id, 'calendar.connection_degraded')).length, 1, 'the degradation is reported once');
    clock.set('2026-03-02T12:00:00Z');
  },
);

test.serial(
  'a feed that never answered is unverifiable: excluded unless the organization allows unverifiable slots',
  async (t) => {
    const strict = await newOrganization(svc, `feed-strict-${randomUUID().slice(0, 6)}`);
    const lenient = await newOrganization(svc, `feed-lenient-${randomUUID().slice(0, 6)}`, { allowUnverifiable: true });
    const path = `/down-${randomUUID()}.ics`;
    modes.set(path, 'fail');
    for (const [o, expected] of [
      [strict, 'zero_results'],
      [lenient, 'resolved'],
    ] as const) {
      const p = await providerWithService(
        o,
        { externalId: 'down' },
        { schedule: { externalCalendar: { type: 'ics', url: `${base}${path}` } } },
      );
      const r = await o.api.post(
        '/api/v2/resolutions',
        { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
        idem(),
      );
      t.is(r.body.status, expected);
      if (expected === 'resolved') {
        t.true(r.body.options.every((x: any) => x.availabilityStatus === 'unverifiable'));
        t.is(r.body.options[0].warnings[0].code, 'AVAILABILITY_UNVERIFIABLE');
      }
    }
  },
);

test.serial('a feed answering 401 asks for a reconnect', async (t) => {
  const o = await newOrganization(svc, `feed-auth-${randomUUID().slice(0, 6)}`);
  const path = `/revoked-${randomUUID()}.ics`;
  modes.set(path, 'auth');
  const p = await providerWithService(
    o,
    { externalId: 'revoked' },
    { schedule: { externalCalendar: { type: 'ics', url: `${base}${path}` } } },
  );
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  t.is(r.body.status, 'zero_results');
  const ev = await events(o.org.id, 'calendar.reconnect_required');
  t.is(ev.length, 1);
  t.like(ev[0], { providerId: p.provider.id, calendarConnectionId: p.schedule.id });
});
