import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, type ServiceError as GrpcError } from '@grpc/grpc-js';
import { EventServiceClient } from '../../src/gen/scheduling/v1/event_service.js';
import { decodeServiceError } from '../../src/grpc/error-metadata.js';
import { createEventSweeper } from '../../src/workers/event-sweeper.js';
import { client } from '../helpers/http.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// GET /api/v2/events and /:id (CONTRACT part 8) on real stores: order, filters, paging, tenancy, modes, retention,
// and the envelope a real receiver got from a webhook delivery.

const T0 = Date.parse('2026-03-02T12:00:00.000Z');
const clock = createTestClock(new Date(T0));
let svc: TestService;
let receiver: WebhookReceiver;
let liveKey: string;

test.before(async () => {
  receiver = await startWebhookReceiver();
  svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_INSECURE_URLS: '1' } });
  liveKey = await livePlatformKey(svc);
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.stop();
});

/** A fresh organization with clients acting in it through the platform's live and test keys. */
async function newOrg() {
  const org = (
    await client(svc.url, liveKey).post('/api/v2/organizations', {
      externalId: `ev-${randomUUID().slice(0, 8)}`,
      name: 'Events Clinic',
    })
  ).body;
  if (!org.id) throw new Error(`organization create failed: ${JSON.stringify(org)}`);
  return {
    id: org.id as string,
    live: client(svc.url, liveKey, { 'service-organization-id': org.id }),
    test: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }),
  };
}

/** Creates a provider (event `professional.created`) in the mode of `c`'s key; answers its id. */
async function provider(c: ReturnType<typeof client>, externalId: string): Promise<string> {
  const r = await c.post('/api/v2/providers', { externalId, displayName: `Dr. ${externalId}` });
  if (r.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(r.body)}`);
  return r.body.id;
}

/** Polls until `probe` answers a value. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test.serial('lists newest first, by type, since and mode, page by page, to either key mode', async (t) => {
  const o = await newOrg();
  clock.set(new Date(T0));
  const made: string[] = [];
  for (const name of ['one', 'two', 'three']) {
    made.push(await provider(o.live, name));
    clock.advance(1000);
  }
  // A test-mode change: professional.updated at T0 + 3 s.
  t.is((await o.test.patch(`/api/v2/providers/${made[0]}`, { bio: 'Updated in test mode' })).status, 200);

  const all = await o.live.get('/api/v2/events');
  t.is(all.status, 200, JSON.stringify(all.body));
  t.deepEqual(
    all.body.data.map((e: any) => [e.type, e.data.providerId, e.createdAt]),
    [
      ['professional.updated', made[0], '2026-03-02T12:00:03.000Z'],
      ['professional.created', made[2], '2026-03-02T12:00:02.000Z'],
      ['professional.created', made[1], '2026-03-02T12:00:01.000Z'],
      ['professional.created', made[0], '2026-03-02T12:00:00.000Z'],
    ],
  );
  t.false(all.body.hasMore);
  t.is(all.body.nextCursor, null);
  for (const e of all.body.data) {
    t.deepEqual(Object.keys(e).sort(), ['apiVersion', 'attempt', 'createdAt', 'data', 'id', 'organizationId', 'type']);
    t.like(e, { apiVersion: '2026-11-01', organizationId: o.id, attempt: 0 });
  }
  const ids = all.body.data.map((e: any) => e.id);

  // Either key mode reads every event of its organization.
  t.deepEqual(
    (await o.test.get('/api/v2/events')).body.data.map((e: any) => e.id),
    ids,
  );

  const listed = async (query: string) =>
    ((await o.live.get(`/api/v2/events?${query}`)).body.data as any[]).map((e) => e.id);
  t.deepEqual(await listed('type=professional.created'), ids.slice(1));
  t.deepEqual(await listed('type=professional.updated'), ids.slice(0, 1));
  t.deepEqual(await listed('type=booking.confirmed'), []);
  t.deepEqual(await listed('since=2026-03-02T12:00:01.000Z'), ids.slice(0, 3), 'since is inclusive');
  t.deepEqual(await listed('since=2026-03-02T12:00:01.001Z'), ids.slice(0, 2));
  t.deepEqual(await listed('since=2026-03-02T13:00:01%2B01:00'), ids.slice(0, 3), 'an offset is an instant');
  t.deepEqual(await listed('mode=test'), ids.slice(0, 1));
  t.deepEqual(await listed('mode=live'), ids.slice(1));
  t.deepEqual(await listed('type=professional.created&since=2026-03-02T12:00:01.000Z&mode=live'), ids.slice(1, 3));

  // Page by page: one event a page, the cursor of each answer to the next, the same events in the same order.
  const paged: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: any = await o.live.get(`/api/v2/events?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(r.status, 200, JSON.stringify(r.body));
    paged.push(...r.body.data.map((e: any) => e.id));
    t.is(r.body.hasMore, r.body.nextCursor !== null);
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor !== null && pages < 10);
  t.deepEqual(paged, ids);
  t.is(pages, 4);
  // Events of the same instant page by id.
  clock.set(new Date(T0 + 10_000));
  await provider(o.live, 'four');
  await provider(o.live, 'five');
  const tied = (await o.live.get('/api/v2/events?limit=2')).body;
  t.is(tied.data[0].createdAt, tied.data[1].createdAt);
  t.true(tied.data[0].id > tied.data[1].id, 'ties newest id first');
  const rest = (await o.live.get(`/api/v2/events?limit=10&cursor=${tied.nextCursor}`)).body;
  t.deepEqual(
    rest.data.map((e: any) => e.id),
    ids,
  );

  t.is((await o.live.get('/api/v2/events?limit=501')).body.error?.field, 'limit');
  t.is((await o.live.get('/api/v2/events?limit=0')).body.error?.field, 'limit');
});

test.serial('an event is exactly the envelope its webhook delivery carried', async (t) => {
  const o = await newOrg();
  t.is((await o.live.put('/api/v2/webhooks', { url: receiver.url, events: ['*'] })).status, 200);
  const providerId = await provider(o.live, 'hooked');
  const [got] = await receiver.waitFor(
    1,
    (r) => r.body?.organizationId === o.id && r.body?.type === 'professional.created',
  );
  // The sender records the attempt after the receiver answered: wait for the delivery to read `delivered`.
  await until('the delivery is recorded', async () => {
    const d = (await o.live.get('/api/v2/webhooks/deliveries')).body.deliveries?.[0];
    return d?.status === 'delivered' ? d : undefined;
  });
  const one = await o.live.get(`/api/v2/events/${got!.body.id}`);
  t.is(one.status, 200, JSON.stringify(one.body));
  t.deepEqual(one.body, got!.body, 'GET /events/:id answers the delivered body');
  t.is(got!.headers['webhook-id'], one.body.id);
  t.like(one.body, { type: 'professional.created', attempt: 1, data: { providerId, externalId: 'hooked' } });
  const listed = (await o.live.get('/api/v2/events?type=professional.created')).body.data;
  t.deepEqual(listed, [got!.body], 'the list carries the same envelope');

  // A test-mode event: its delivery is suppressed (never sent), its envelope says no attempt was made.
  t.is((await o.test.patch(`/api/v2/providers/${providerId}`, { bio: 'test mode' })).status, 200);
  const updated = await until('the test-mode event is dispatched', async () => {
    const d = (await o.live.get('/api/v2/webhooks/deliveries?event=professional.updated')).body.deliveries?.[0];
    return d?.status === 'suppressed' ? d : undefined;
  });
  const quiet = await o.test.get(`/api/v2/events/${updated.eventId}`);
  t.like(quiet.body, { id: updated.eventId, type: 'professional.updated', attempt: 0 });
  t.false(
    receiver.requests.some((r) => r.body?.id === updated.eventId),
    'a test-mode event is never sent',
  );
});

test.serial('reading another organization’s event is 403, an unknown one 404', async (t) => {
  const a = await newOrg();
  const b = await newOrg();
  await provider(b.live, 'bravo');
  const bEvent = (await b.live.get('/api/v2/events')).body.data[0];
  for (const c of [a.live, a.test]) {
    const r = await c.get(`/api/v2/events/${bEvent.id}`);
    t.is(r.status, 403);
    t.is(r.body.error.code, 'FORBIDDEN');
    t.false(JSON.stringify(r.body).includes('bravo'), 'the refusal reveals nothing of the event');
  }
  t.deepEqual((await a.live.get('/api/v2/events')).body.data, [], "another organization's events are never listed");
  const missing = await a.live.get('/api/v2/events/evt_nope');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'EVENT_NOT_FOUND');
  t.is((await b.live.get(`/api/v2/events/${bEvent.id}`)).status, 200);
});

test.serial('the typed gRPC door lists and reads the same events', async (t) => {
  const o = await newOrg();
  clock.set(new Date(T0 + 60_000));
  await provider(o.live, 'typed-1');
  clock.advance(1000);
  await provider(o.live, 'typed-2');
  const rest = (await o.live.get('/api/v2/events')).body.data;
  const grpc = new EventServiceClient(svc.grpcTarget, credentials.createInsecure());
  const md = () => {
    const m = new Metadata();
    m.set('authorization', `Bearer ${liveKey}`);
    m.set('service-organization-id', o.id);
    return m;
  };
  try {
    const listed = await new Promise<any>((resolve, reject) =>
      grpc.listEvents({ type: 'professional.created', since: new Date(T0 + 60_500), pageSize: 5 }, md(), (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
    t.is(listed.data.length, 1, JSON.stringify(listed));
    t.false(listed.hasMore);
    t.is(listed.data[0].id, rest[0].id);
    t.deepEqual(listed.data[0].createdAt, new Date(rest[0].createdAt));
    t.is(Number(listed.data[0].attempt), 0);
    // The data is typed: the case of EventData that the event's type names.
    t.like(listed.data[0].eventData, {
      kind: { $case: 'professionalCreated', value: { providerId: rest[0].data.providerId, externalId: 'typed-2' } },
    });
    const one = await new Promise<any>((resolve, reject) =>
      grpc.getEvent({ id: rest[1].id }, md(), (err, res) => (err ? reject(err) : resolve(res))),
    );
    t.is(one.event.id, rest[1].id);
    t.is(one.event.type, 'professional.created');
    t.like(one.event.eventData, { kind: { $case: 'professionalCreated', value: { externalId: 'typed-1' } } });
    const err = await new Promise<GrpcError>((resolve, reject) =>
      grpc.getEvent({ id: 'evt_nope' }, md(), (e, res) =>
        e ? resolve(e) : reject(new Error(`accepted: ${JSON.stringify(res)}`)),
      ),
    );
    t.is(decodeServiceError(err)?.code, 'EVENT_NOT_FOUND');
  } finally {
    grpc.close();
  }
});

// Last: it moves the shared clock 30 days on.
test.serial(
  'events are kept 30 days: older ones are neither listed nor read, and the sweeper deletes them',
  async (t) => {
    const o = await newOrg();
    t.is((await o.live.put('/api/v2/webhooks', { url: receiver.url, events: ['*'] })).status, 200);
    const start = new Date(T0 + 120_000);
    clock.set(start);
    await provider(o.live, 'old');
    const old = (await o.live.get('/api/v2/events')).body.data[0];
    const delivery = await until('the old event is delivered', async () => {
      const d = (await o.live.get('/api/v2/webhooks/deliveries')).body.deliveries?.[0];
      return d?.status === 'delivered' ? d : undefined;
    });
    clock.set(new Date(start.getTime() + 29 * 24 * 3600_000));
    await provider(o.live, 'recent');
    const recent = (await o.live.get('/api/v2/events')).body.data[0];

    // 30 days to the millisecond: still there.
    clock.set(new Date(start.getTime() + 30 * 24 * 3600_000));
    t.is((await o.live.get(`/api/v2/events/${old.id}`)).status, 200);
    clock.advance(1);
    const gone = await o.live.get(`/api/v2/events/${old.id}`);
    t.is(gone.status, 404);
    t.is(gone.body.error.code, 'EVENT_NOT_FOUND');
    t.deepEqual(
      (await o.live.get('/api/v2/events')).body.data.map((e: any) => e.id),
      [recent.id],
    );
    t.deepEqual(
      (await o.live.get('/api/v2/events?since=2026-01-01T00:00:00Z')).body.data.map((e: any) => e.id),
      [recent.id],
      'since cannot reach past the 30 days',
    );

    // The sweeper deletes the old event with its delivery record and attempts, and nothing newer.
    const db = svc.service.deps.db;
    const count = async (sql: string, id: string) => Number((await db.query(sql, [id])).rows[0].n);
    t.is(await count('SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = $1', delivery.id), 1);
    const sweeper = createEventSweeper({ db, clock, pollMs: 50 });
    sweeper.start();
    try {
      await until('the sweep', async () =>
        (await count('SELECT count(*) AS n FROM events WHERE id = $1', old.id)) === 0 ? true : undefined,
      );
    } finally {
      await sweeper.stop();
    }
    t.is(await count('SELECT count(*) AS n FROM webhook_deliveries WHERE id = $1', delivery.id), 0);
    t.is(await count('SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = $1', delivery.id), 0);
    t.is(await count('SELECT count(*) AS n FROM events WHERE id = $1', recent.id), 1);
    t.is((await o.live.get(`/api/v2/events/${recent.id}`)).status, 200);
  },
);
