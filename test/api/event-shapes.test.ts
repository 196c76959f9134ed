import test from 'ava';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { EVENT_DATA_SCHEMAS, Event } from '../../src/contract/schemas/event.js';

// Every event type of SPEC part 6 is produced through the API, then read from the `events` outbox; each type's data
// must have exactly the keys CONTRACT part 6 gives it, with values of the right kind.

let svc: TestService;
let server: Server;
let feedBase = '';
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  // A feed server: /fail answers 500 (the connection degrades), /revoked 401 (access revoked: reconnect).
  server = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/revoked') ? 401 : 500);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  feedBase = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  // The feeds are served from 127.0.0.1, which only OUTBOUND_ALLOW_INSECURE_URLS lets the service reach.
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '300', OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
});
test.after.always(async () => {
  await svc?.stop();
  server?.close();
});

/** A check of one value; answers what is wrong, or undefined. */
type Check = (v: unknown) => string | undefined;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const str: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : `not a string: ${JSON.stringify(v)}`);
const id =
  (prefix: string): Check =>
  (v) =>
    typeof v === 'string' && v.startsWith(prefix) ? undefined : `not a ${prefix} id: ${JSON.stringify(v)}`;
const iso: Check = (v) =>
  typeof v === 'string' && ISO.test(v) ? undefined : `not an ISO instant: ${JSON.stringify(v)}`;
const int: Check = (v) => (Number.isInteger(v) && (v as number) >= 0 ? undefined : `not a count: ${JSON.stringify(v)}`);
const oneOf =
  (...values: unknown[]): Check =>
  (v) =>
    values.includes(v) ? undefined : `not one of ${values.join('|')}: ${JSON.stringify(v)}`;
const nullable =
  (c: Check): Check =>
  (v) =>
    v === null ? undefined : c(v);
const slot: Check = (v) => {
  if (typeof v !== 'object' || v === null) return 'slot is not an object';
  const s = v as Record<string, unknown>;
  if (Object.keys(s).sort().join() !== 'end,start,timezone') return `slot keys ${Object.keys(s)}`;
  return iso(s.start) ?? iso(s.end) ?? str(s.timezone);
};
const summary: Check = (v) => {
  if (typeof v !== 'object' || v === null) return 'summary is not an object';
  const s = v as Record<string, unknown>;
  if (Object.keys(s).sort().join() !== 'created,deactivated,invalid,received,unchanged,updated')
    return `summary keys ${Object.keys(s)}`;
  return Object.values(s)
    .map(int)
    .find((e) => e !== undefined);
};

/** Per type: the keys every event has, and those present only where they apply (CONTRACT part 6). */
interface Shape {
  required: Record<string, Check>;
  optional?: Record<string, Check>;
}

const booking = (status: Check, extra: Record<string, Check> = {}, optional: Record<string, Check> = {}): Shape => ({
  required: {
    bookingId: id('bkg_'),
    resolutionId: nullable(id('res_')),
    providerId: id('prv_'),
    slot,
    status,
    ...extra,
  },
  optional: { rescheduledFrom: id('bkg_'), ...optional },
});
const resolution = (status: Check, extra: Record<string, Check> = {}): Shape => ({
  required: { resolutionId: id('res_'), status, optionsReturned: int, requestId: id('req_'), ...extra },
});
const professional: Shape = { required: { providerId: id('prv_'), externalId: str, profileVersion: int } };
const calendar: Shape = { required: { providerId: id('prv_'), calendarConnectionId: str, reason: str } };

const SHAPES: Record<string, Shape> = {
  'professional.created': professional,
  'professional.updated': professional,
  'provider_import.completed': { required: { importId: str, summary } },
  'resolution.resolved': resolution(oneOf('resolved')),
  'resolution.zero_results': resolution(oneOf('zero_results')),
  'resolution.partial': resolution(oneOf('resolved', 'zero_results'), { unknownProviders: int }),
  'option.held': {
    required: { resolutionId: id('res_'), optionId: str, holdId: id('hld_'), expiresAt: iso, reason: oneOf('held') },
  },
  'option.released': {
    required: {
      resolutionId: id('res_'),
      optionId: str,
      holdId: id('hld_'),
      releasedAt: iso,
      reason: oneOf('released', 'expired'),
    },
  },
  'booking.confirmed': booking(oneOf('confirmed')),
  'booking.cancelled': booking(oneOf('cancelled'), { cancelledAt: iso, reason: nullable(str) }),
  'booking.rescheduled': booking(oneOf('rescheduled'), { rescheduledTo: id('bkg_') }),
  'booking.completed': booking(oneOf('completed')),
  'calendar.connection_degraded': calendar,
  'calendar.reconnect_required': calendar,
};

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const attendee = customer;

async function eventsOf(orgId: string) {
  return (
    await svc.service.deps.db.query('SELECT type, data FROM events WHERE organization_id = $1 ORDER BY id', [orgId])
  ).rows as { type: string; data: Record<string, unknown> }[];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test.serial('every event type is emitted where SPEC part 6 says, with exactly its CONTRACT part 6 data', async (t) => {
  const o = await newOrganization(svc, `shapes-${randomUUID().slice(0, 6)}`);
  // professional.created (x3), professional.updated.
  const ana = await providerWithService(o, { externalId: 'ana', languageCodes: ['es', 'en'] });
  const ben = await providerWithService(o, { externalId: 'ben' });
  t.is((await o.api.patch(`/api/v2/providers/${ana.provider.id}`, { bio: 'Bilingual therapist' })).status, 200);

  // provider_import.completed.
  const imp = await o.platform.post('/api/v2/provider-imports', {
    providers: [{ externalId: 'imp-1', displayName: 'Dr. Imp' }],
  });
  t.is(imp.status, 202, JSON.stringify(imp.body));
  await until('the import', async () =>
    (await o.api.get(`/api/v2/provider-imports/${imp.body.importId}`)).body.status === 'completed' ? true : undefined,
  );

  // resolution.resolved with resolution.partial (ben has no languages: unknown), then resolution.zero_results.
  const resolve = (constraints: Record<string, unknown>, serviceId = ana.service.id) =>
    o.api.post(
      '/api/v2/resolutions',
      { serviceId, constraints, dateRange: { from: '2026-03-02', to: '2026-03-05' } },
      idem(),
    );
  const r = (await resolve({ languageCodes: { anyOf: ['es'] } })).body;
  t.is(r.status, 'resolved', JSON.stringify(r));
  t.is(
    (await resolve({ languageCodes: { anyOf: ['de'] }, insurancePlanCodes: { anyOf: ['aetna'] } })).body.status,
    'zero_results',
  );

  // option.held, option.released (released), booking.confirmed (v2, with its resolution).
  const base = `/api/v2/resolutions/${r.resolutionId}/options`;
  t.is((await o.api.post(`${base}/${r.options[1].optionId}/hold`)).status, 200);
  t.is((await o.api.delete(`${base}/${r.options[1].optionId}/hold`)).status, 200);
  const confirmed = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: r.options[0].optionId, customer },
    idem(),
  );
  t.is(confirmed.status, 200, JSON.stringify(confirmed.body));

  // v1: a booking confirmed by its link (no resolution), rescheduled; the new one confirmed and cancelled with a
  // reason; another cancelled without one.
  const slotId = async (date: string, time: string) => {
    const s = (
      await o.api.get(`/api/v1/slots?providerId=${ben.provider.id}&eventTypeId=${ben.service.id}&date=${date}`)
    ).body.slots.find((x: any) => x.time === time);
    return s.id as string;
  };
  const createV1 = async (date: string, time: string) => {
    const made = await o.api.post('/api/v1/bookings', {
      providerId: ben.provider.id,
      serviceId: ben.service.id,
      slotId: await slotId(date, time),
      attendee,
    });
    t.is(made.status, 200, JSON.stringify(made.body));
    return made.body.data as { id: string; tokenToConfirm: string };
  };
  const confirmLink = async (bookingId: string, token: string) =>
    t.is(
      (
        await request(svc.url, 'GET', `/api/v1/bookings/${bookingId}/confirm?token=${encodeURIComponent(token)}`, {
          headers: { accept: 'application/json' },
        })
      ).status,
      200,
    );
  const first = await createV1('2026-03-04', '09:00');
  await confirmLink(first.id, first.tokenToConfirm);
  const moved = await o.api.post(`/api/v1/bookings/${first.id}/reschedule`, { date: '2026-03-04', time: '14:00' });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  const movedId = moved.body.data.id as string;
  const token = new URL((await o.api.get(`/api/v1/bookings/${movedId}`)).body.confirmationUrl).searchParams.get(
    'token',
  )!;
  await confirmLink(movedId, token);
  t.is((await o.api.post(`/api/v1/bookings/${movedId}/cancel`, { reason: 'feeling better' })).status, 200);
  const other = await createV1('2026-03-05', '10:00');
  t.is((await o.api.post(`/api/v1/bookings/${other.id}/cancel`, {})).status, 200);

  // calendar.connection_degraded and calendar.reconnect_required, seen by a resolution of their own session type.
  const feed = (path: string) => ({
    title: 'Feed Session',
    schedule: { externalCalendar: { type: 'ics', url: `${feedBase}${path}` } },
  });
  const failing = await providerWithService(o, { externalId: 'feed-fail' }, feed(`/fail-${randomUUID()}.ics`));
  await providerWithService(o, { externalId: 'feed-revoked' }, feed(`/revoked-${randomUUID()}.ics`));
  t.is((await resolve({}, failing.service.id)).status, 200);

  // option.released (expired) by the hold's durable timer, then booking.completed by the booking's.
  const r2 = (await resolve({}, ana.service.id)).body;
  const shortHold = (
    await o.api.post(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[0].optionId}/hold`, { ttlSeconds: 1 })
  ).body;
  clock.advance(2_000);
  const all = async () => eventsOf(o.org.id);
  await until('the hold expiry', async () =>
    (await all()).some((e) => e.type === 'option.released' && e.data.holdId === shortHold.holdId) ? true : undefined,
  );
  clock.set(new Date(Date.parse(confirmed.body.slot.end) + 1000));
  await until('the completion', async () =>
    (await all()).some((e) => e.type === 'booking.completed') ? true : undefined,
  );

  const events = await all();
  const byType = new Map<string, Record<string, unknown>[]>();
  for (const e of events) byType.set(e.type, [...(byType.get(e.type) ?? []), e.data]);
  t.deepEqual([...byType.keys()].sort(), Object.keys(SHAPES).sort(), 'every SPEC part 6 type, and no other');
  const problems: string[] = [];
  for (const [type, shape] of Object.entries(SHAPES)) {
    for (const data of byType.get(type) ?? []) {
      const allowed = { ...shape.required, ...shape.optional };
      for (const key of Object.keys(shape.required)) if (!(key in data)) problems.push(`${type}: missing ${key}`);
      for (const [key, value] of Object.entries(data)) {
        const check = allowed[key];
        if (!check) problems.push(`${type}: unexpected ${key}`);
        else {
          const wrong = check(value);
          if (wrong) problems.push(`${type}.${key}: ${wrong}`);
        }
      }
    }
  }
  t.deepEqual(problems, []);

  // The published schemas (GET /api/v2/events items, openapi.json `webhooks`) take every event as emitted, no key
  // left over, and the events API answers the same data as the outbox holds.
  const listed: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = (await o.api.get(`/api/v2/events?limit=500${cursor ? `&cursor=${cursor}` : ''}`)).body;
    listed.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  t.is(listed.length, events.length, 'every stored event is listed');
  const unpublished: string[] = [];
  for (const e of listed) {
    const envelope = Event.safeParse(e);
    if (!envelope.success) unpublished.push(`${e.type}: ${envelope.error.message}`);
    const schema = EVENT_DATA_SCHEMAS[e.type as keyof typeof EVENT_DATA_SCHEMAS];
    const data = schema?.strict().safeParse(e.data);
    if (!data?.success) unpublished.push(`${e.type}.data: ${data?.error.message ?? 'no schema'}`);
  }
  t.deepEqual(unpublished, []);
  const canonical = (xs: { type: string; data: unknown }[]) => xs.map((e) => JSON.stringify([e.type, e.data])).sort();
  t.deepEqual(canonical(listed), canonical(events));

  // Values where they apply (CONTRACT parts 5 and 6).
  const one = (type: string, pick: (d: Record<string, unknown>) => boolean = () => true) =>
    byType.get(type)?.find(pick);
  t.like(one('resolution.partial'), { resolutionId: r.resolutionId, status: 'resolved', unknownProviders: 1 });
  t.like(
    one('resolution.resolved', (d) => d.resolutionId === r.resolutionId),
    { optionsReturned: r.options.length, requestId: r.requestId },
  );
  t.like(
    one('booking.confirmed', (d) => d.bookingId === confirmed.body.id),
    { resolutionId: r.resolutionId, providerId: ana.provider.id, status: 'confirmed' },
  );
  t.like(
    one('booking.confirmed', (d) => d.bookingId === first.id),
    { resolutionId: null, providerId: ben.provider.id },
  );
  t.false('rescheduledFrom' in one('booking.confirmed', (d) => d.bookingId === first.id)!);
  t.like(
    one('booking.confirmed', (d) => d.bookingId === movedId),
    { rescheduledFrom: first.id },
  );
  t.like(one('booking.rescheduled'), {
    bookingId: first.id,
    rescheduledTo: movedId,
    status: 'rescheduled',
    slot: { start: '2026-03-04T19:00:00.000Z', end: '2026-03-04T20:00:00.000Z', timezone: 'America/New_York' },
  });
  t.like(
    one('booking.cancelled', (d) => d.bookingId === movedId),
    { reason: 'feeling better', rescheduledFrom: first.id, resolutionId: null },
  );
  t.like(
    one('booking.cancelled', (d) => d.bookingId === other.id),
    { reason: null },
  );
  t.like(
    one('option.released', (d) => d.holdId === shortHold.holdId),
    { reason: 'expired', releasedAt: shortHold.expiresAt },
  );
  t.like(
    one('option.released', (d) => d.reason === 'released'),
    { resolutionId: r.resolutionId, optionId: r.options[1].optionId },
  );
  t.like(one('professional.updated'), { providerId: ana.provider.id, externalId: 'ana', profileVersion: 2 });
  t.like(one('provider_import.completed'), {
    importId: imp.body.importId,
    summary: { received: 1, created: 1, updated: 0, unchanged: 0, invalid: 0, deactivated: 0 },
  });
  t.like(one('calendar.connection_degraded'), {
    providerId: failing.provider.id,
    calendarConnectionId: failing.schedule.id,
  });
  t.is(byType.get('calendar.connection_degraded')?.length, 1);
  t.is(byType.get('calendar.reconnect_required')?.length, 1);
});
