import test from 'ava';
import type { LookupAddress } from 'node:dns';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { WebhookServiceClient } from '../../src/gen/scheduling/v1/webhook_service.js';
import type { OutboundLookup } from '../../src/application/outbound/guarded-lookup.js';
import { client } from '../helpers/http.js';
import type { TestService } from '../helpers/test-service.js';
import { startWebhookFixture, type Plan, type WebhookFixture } from '../helpers/webhook-fixture.js';
import type { ReceivedWebhook, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';
import { restOfResponse, typedRequest } from '../helpers/typed-messages.js';

// Two services: `svc` allows http/loopback webhook URLs (so a local receiver can be the target); `strict` runs with
// the production rules and a DNS lookup the test controls.
let svc: TestService;
let strict: TestService;
let receiver: WebhookReceiver;
/** A platform_live key of `svc` (the test service's own platform key is a test key). */
let liveKey: string;

/** Names the injected lookup knows: a public address, loopback, and a name with one public and one private address. */
const DNS: Record<string, LookupAddress[]> = {
  'hooks.example.com': [{ address: '93.184.216.34', family: 4 }],
  'loopback.example.com': [{ address: '127.0.0.1', family: 4 }],
  'mixed.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.1.2.3', family: 4 },
  ],
  'metadata.example.com': [{ address: '169.254.169.254', family: 4 }],
};
const fakeLookup: OutboundLookup = ((
  host: string,
  _opts: unknown,
  cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[] | string, f?: number) => void,
) => {
  const found = DNS[host];
  if (!found) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(null, found);
}) as unknown as OutboundLookup;

let fixture: WebhookFixture;
/** Status answered per organization (default 200), so tests sharing the receiver do not disturb each other. */
let answers: Map<string, number | 'hang'>;

test.before(async () => {
  fixture = await startWebhookFixture({ lookup: fakeLookup });
  ({ svc, strict, receiver, answers } = fixture);
  liveKey = fixture.liveKey(svc);
});
test.after.always(async () => {
  await fixture?.stop();
});

/** A fresh organization of `svc` (or `service()`) on a plan, with live and test clients acting in it. */
const newOrg = (plan: Plan = 'launch', service: () => TestService = () => svc) =>
  fixture.newOrg({ plan, service: service() });

/** Requests of one organization the receiver got. */
const ofOrg = (orgId: string, type?: string) => (r: ReceivedWebhook) =>
  r.body?.organizationId === orgId && (type === undefined || r.body?.type === type);

/** Polls a delivery list until `n` deliveries match (the dispatcher works in the background). */
async function waitForDeliveries(c: ReturnType<typeof client>, n: number, query = '', timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.get(`/api/v2/webhooks/deliveries?limit=500${query}`);
    if (r.status === 200 && r.body.deliveries.length >= n) return r.body;
    if (Date.now() > until)
      throw new Error(
        `${r.body?.deliveries?.length} of ${n} deliveries within ${timeoutMs} ms: ${JSON.stringify(r.body)}`,
      );
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Polls one delivery until `ok` holds. */
async function waitForDelivery(c: ReturnType<typeof client>, id: string, ok: (d: any) => boolean, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.get(`/api/v2/webhooks/deliveries/${id}`);
    if (r.status === 200 && ok(r.body)) return r.body;
    if (Date.now() > until)
      throw new Error(`delivery ${id} did not reach the expected state: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

test('configuration lifecycle: 404 before set-up, secret only on creation and rotation, active defaults to true', async (t) => {
  const org = await newOrg();
  const before = await org.live.get('/api/v2/webhooks');
  t.is(before.status, 404);
  t.is(before.body.error.code, 'WEBHOOK_NOT_CONFIGURED');

  // A live key configures it (a test key may only read it: test/security/test-key-limits.test.ts).
  const created = await org.live.put('/api/v2/webhooks', {
    url: receiver.url,
    events: ['booking.confirmed', 'professional.created'],
  });
  t.is(created.status, 200);
  t.like(created.body, { url: receiver.url, events: ['booking.confirmed', 'professional.created'], active: true });
  t.regex(created.body.secret, SECRET);
  t.is(Buffer.from(created.body.secret.slice(6), 'base64').length, 32);
  t.truthy(Date.parse(created.body.createdAt));

  const read = await org.live.get('/api/v2/webhooks');
  t.deepEqual(read.body, {
    url: receiver.url,
    events: ['booking.confirmed', 'professional.created'],
    active: true,
    createdAt: created.body.createdAt,
  });

  const replaced = await org.live.put('/api/v2/webhooks', { url: `${receiver.url}?v=2`, events: ['*'], active: false });
  t.is(replaced.status, 200);
  t.deepEqual(replaced.body, {
    url: `${receiver.url}?v=2`,
    events: ['*'],
    active: false,
    createdAt: created.body.createdAt,
  });
  t.false('secret' in replaced.body);

  const rotated = await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['*'], rotateSecret: true });
  t.regex(rotated.body.secret, SECRET);
  t.not(rotated.body.secret, created.body.secret);
  t.true(rotated.body.active, 'active defaults to true on every PUT');
  const row = (
    await svc.service.deps.db.query(
      'SELECT secret, previous_secret, previous_secret_expires_at FROM webhooks WHERE organization_id = $1',
      [org.id],
    )
  ).rows[0];
  t.is(row.secret, rotated.body.secret);
  t.is(row.previous_secret, created.body.secret);
  t.is(row.previous_secret_expires_at.getTime(), svc.clock().getTime() + 24 * 3600 * 1000);
  t.false('secret' in (await org.live.get('/api/v2/webhooks')).body);

  // The audit log records every change but never a secret.
  const audit = await org.live.get('/api/v2/audit-events?action=webhook.update');
  t.is(audit.body.data.length, 3);
  const text = JSON.stringify(audit.body);
  t.false(text.includes(created.body.secret.slice(6, 30)));
  t.false(text.includes(rotated.body.secret.slice(6, 30)));
});

test('bad URLs are 400 VALIDATION_ERROR on `url` and change nothing (production rules, injected DNS)', async (t) => {
  const org = await newOrg('launch', () => strict);
  const cases: [string, unknown][] = [
    ['not a URL', 'not a url'],
    ['relative', '/hooks'],
    ['ftp', 'ftp://hooks.example.com/x'],
    ['http without WEBHOOK_ALLOW_INSECURE_URLS', 'http://hooks.example.com/hook'],
    ['credentials', 'https://user:pass@hooks.example.com/hook'],
    ['empty credentials', 'https://:@hooks.example.com/hook'],
    ['IPv4 loopback', 'https://127.0.0.1/hook'],
    ['IPv4 loopback elsewhere in 127/8', 'https://127.8.9.10/hook'],
    ['private 10/8', 'https://10.0.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.20/hook'],
    ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv6 unique-local', 'https://[fc00::1]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['name resolving to loopback', 'https://loopback.example.com/hook'],
    ['name resolving to link-local', 'https://metadata.example.com/hook'],
    ['name with one private address among public ones', 'https://mixed.example.com/hook'],
    ['name that does not resolve', 'https://nowhere.example.com/hook'],
    ['empty', ''],
    ['not a string', 42],
    ['too long', `https://hooks.example.com/${'a'.repeat(1000)}`],
  ];
  for (const [name, url] of cases) {
    const r = await org.live.put('/api/v2/webhooks', { url, events: ['*'] });
    t.is(r.status, 400, name);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', name);
    t.is(r.body.error?.field, 'url', name);
  }
  t.is((await org.live.get('/api/v2/webhooks')).body.error.code, 'WEBHOOK_NOT_CONFIGURED');
  t.is((await strict.service.deps.db.query('SELECT count(*)::int AS n FROM webhooks')).rows[0].n, 0);

  // A public https target is accepted.
  const ok = await org.live.put('/api/v2/webhooks', { url: 'https://hooks.example.com/hook', events: ['*'] });
  t.is(ok.status, 200, JSON.stringify(ok.body));
  t.regex(ok.body.secret, SECRET);
  const ip = await org.live.put('/api/v2/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] });
  t.is(ip.status, 200);
});

test('with WEBHOOK_ALLOW_INSECURE_URLS=1, http and loopback are allowed but not other schemes or credentials', async (t) => {
  const org = await newOrg();
  t.is((await org.live.put('/api/v2/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).status, 200);
  for (const url of ['ftp://127.0.0.1/x', 'http://u:p@127.0.0.1/hook', 'nope']) {
    const r = await org.live.put('/api/v2/webhooks', { url, events: ['*'] });
    t.is(r.status, 400, url);
    t.is(r.body.error.field, 'url', url);
  }
});

test('bad event lists and bodies are 400 VALIDATION_ERROR naming the field, and change nothing', async (t) => {
  const org = await newOrg();
  const cases: [string, unknown, string][] = [
    ['unknown event type', { url: receiver.url, events: ['booking.exploded'] }, 'events.0'],
    ['unknown among known', { url: receiver.url, events: ['booking.confirmed', 'professional.deleted'] }, 'events.1'],
    ['case matters', { url: receiver.url, events: ['Booking.Confirmed'] }, 'events.0'],
    ['empty list', { url: receiver.url, events: [] }, 'events'],
    ['not a list', { url: receiver.url, events: 'booking.confirmed' }, 'events'],
    ['not strings', { url: receiver.url, events: [1] }, 'events.0'],
    ['* with others', { url: receiver.url, events: ['*', 'booking.confirmed'] }, 'events'],
    ['missing events', { url: receiver.url }, 'events'],
    ['missing url', { events: ['*'] }, 'url'],
    ['active not boolean', { url: receiver.url, events: ['*'], active: 'yes' }, 'active'],
    ['rotateSecret not boolean', { url: receiver.url, events: ['*'], rotateSecret: 1 }, 'rotateSecret'],
  ];
  for (const [name, body, field] of cases) {
    const r = await org.live.put('/api/v2/webhooks', body);
    t.is(r.status, 400, name);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', name);
    t.is(r.body.error?.field, field, name);
  }
  const noBody = await org.live.put('/api/v2/webhooks');
  t.is(noBody.status, 400);
  const badJson = await client(svc.url, liveKey).put('/api/v2/webhooks', undefined, {
    'content-type': 'application/json',
  });
  t.is(badJson.status, 400);
  t.is((await org.live.get('/api/v2/webhooks')).status, 404);
  // Every SPEC part 6 type is accepted, and repeats are kept once.
  const all = [
    'professional.created',
    'professional.updated',
    'provider_import.completed',
    'resolution.resolved',
    'resolution.zero_results',
    'resolution.partial',
    'option.held',
    'option.released',
    'booking.confirmed',
    'booking.rescheduled',
    'booking.cancelled',
    'booking.completed',
    'calendar.connection_degraded',
    'calendar.reconnect_required',
  ];
  const ok = await org.live.put('/api/v2/webhooks', { url: receiver.url, events: [...all, 'booking.confirmed'] });
  t.is(ok.status, 200);
  t.deepEqual(ok.body.events, all);
});

test('test send: delivered with status and latency to a live receiver; LIVE_KEY_REQUIRED with a test key; 404 before set-up', async (t) => {
  const org = await newOrg('free');
  const notConfigured = await org.live.post('/api/v2/webhooks/test');
  t.is(notConfigured.status, 404);
  t.is(notConfigured.body.error.code, 'WEBHOOK_NOT_CONFIGURED');
  const firstSecret = (await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['booking.confirmed'] }))
    .body.secret;

  const testKey = await org.test.post('/api/v2/webhooks/test');
  t.is(testKey.status, 403);
  t.is(testKey.body.error.code, 'LIVE_KEY_REQUIRED');
  t.is(receiver.requests.filter(ofOrg(org.id)).length, 0, 'a test key sends nothing');

  const sent = await org.live.post('/api/v2/webhooks/test');
  t.is(sent.status, 200, JSON.stringify(sent.body));
  t.is(sent.body.delivered, true);
  t.is(sent.body.statusCode, 200);
  t.true(Number.isInteger(sent.body.latencyMs) && sent.body.latencyMs >= 0);
  const [got] = await receiver.waitFor(1, ofOrg(org.id));
  t.is(got!.headers['webhook-id'], got!.body.id);
  t.deepEqual(new StandardWebhook(firstSecret).verify(got!.rawBody, got!.headers as Record<string, string>), got!.body);

  const secret = (
    await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['booking.confirmed'], rotateSecret: true })
  ).body.secret;
  t.is((await org.live.post('/api/v2/webhooks/test')).body.delivered, true);
  const signed = (await receiver.waitFor(2, ofOrg(org.id)))[1]!;
  // During the rotation overlap the test event is signed with the new secret and the previous one.
  t.is(String(signed.headers['webhook-signature']).split(' ').length, 2);
  t.is(String(signed.headers['x-service-signature']).split(',').length, 2);
  t.deepEqual(
    new StandardWebhook(secret).verify(signed.rawBody, signed.headers as Record<string, string>),
    signed.body,
  );
  t.deepEqual(
    new StandardWebhook(firstSecret).verify(signed.rawBody, signed.headers as Record<string, string>),
    signed.body,
  );
  t.is(signed.body.type, 'webhook.test');
  t.is(signed.body.organizationId, org.id);

  answers.set(org.id, 500);
  const failing = await org.live.post('/api/v2/webhooks/test');
  t.is(failing.status, 200);
  t.like(failing.body, { delivered: false, statusCode: 500 });
  answers.delete(org.id);
  // A test send is not an event: it leaves no delivery record.
  t.is((await org.live.get('/api/v2/webhooks/deliveries')).body.total, 0);
});

test('delivery log: one record per event, filters by status and event, newest first, cursor paging with total; detail has attempts', async (t) => {
  const org = await newOrg();
  await org.live.put('/api/v2/webhooks', {
    url: receiver.url,
    events: ['professional.created', 'professional.updated'],
  });
  const empty = await org.live.get('/api/v2/webhooks/deliveries');
  t.deepEqual(empty.body, { deliveries: [], total: 0, nextCursor: null });

  const providers: string[] = [];
  for (let i = 0; i < 5; i++) {
    const p = await org.live.post('/api/v2/providers', { externalId: `log-${i}`, displayName: `Dr. Log ${i}` });
    t.is(p.status, 200);
    providers.push(p.body.id);
  }
  // The clock is frozen: move it 1 ms so the update is the newest event by time, not only by arrival.
  svc.clock.advance(1);
  t.is((await org.live.patch(`/api/v2/providers/${providers[0]}`, { displayName: 'Dr. Renamed' })).status, 200);
  await receiver.waitFor(6, ofOrg(org.id));
  const all = await waitForDeliveries(org.live, 6);
  t.is(all.total, 6);
  t.deepEqual(
    all.deliveries.map((d: any) => d.event).sort(),
    [...Array(5).fill('professional.created'), 'professional.updated'].sort(),
  );
  // Newest first: the update came last.
  t.is(all.deliveries[0].event, 'professional.updated');
  for (const d of all.deliveries) {
    t.regex(d.eventId, /^evt_/);
    t.truthy(Date.parse(d.timestamp));
  }
  const delivered = await waitForDeliveries(org.live, 6, '&status=delivered');
  t.true(
    delivered.deliveries.every(
      (d: any) => d.status === 'delivered' && d.success === true && d.statusCode === 200 && d.attempt === 1,
    ),
  );

  // One record per event: the envelope ids the receiver saw are the deliveries' event ids.
  const seen = new Set(receiver.requests.filter(ofOrg(org.id)).map((r) => r.body.id));
  t.deepEqual([...seen].sort(), all.deliveries.map((d: any) => d.eventId).sort());

  const updated = await org.live.get('/api/v2/webhooks/deliveries?event=professional.updated');
  t.is(updated.body.total, 1);
  t.is(updated.body.deliveries[0].event, 'professional.updated');
  t.deepEqual((await org.live.get('/api/v2/webhooks/deliveries?status=dead_lettered')).body, {
    deliveries: [],
    total: 0,
    nextCursor: null,
  });

  // Cursor paging: pages of 2 walk all six once, newest first, each answer carrying the whole total.
  const walked: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: any = await org.live.get(
      `/api/v2/webhooks/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    t.is(r.status, 200);
    t.is(r.body.total, 6);
    t.true(r.body.deliveries.length <= 2);
    walked.push(...r.body.deliveries.map((d: any) => d.id));
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  t.deepEqual(
    walked,
    all.deliveries.map((d: any) => d.id),
  );
  t.is(pages, 3);
  const created = await org.live.get('/api/v2/webhooks/deliveries?event=professional.created&limit=3');
  t.is(created.body.total, 5);
  t.is(created.body.deliveries.length, 3);
  const rest = await org.live.get(
    `/api/v2/webhooks/deliveries?event=professional.created&limit=3&cursor=${encodeURIComponent(created.body.nextCursor)}`,
  );
  t.is(rest.body.deliveries.length, 2);
  t.is(rest.body.nextCursor, null);

  const detail = await org.live.get(`/api/v2/webhooks/deliveries/${all.deliveries[0].id}`);
  t.is(detail.status, 200);
  t.like(detail.body, {
    id: all.deliveries[0].id,
    event: 'professional.updated',
    status: 'delivered',
    attempt: 1,
    statusCode: 200,
    success: true,
  });
  t.is(detail.body.attempts.length, 1);
  t.like(detail.body.attempts[0], { attempt: 1, statusCode: 200, success: true, manual: false });
  t.false('error' in detail.body.attempts[0]);
});

test('invalid list queries are 400 VALIDATION_ERROR naming the parameter', async (t) => {
  const org = await newOrg();
  const cases: [string, string][] = [
    ['status=exploded', 'status'],
    ['status=', 'status'],
    ['event=booking.exploded', 'event'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=-1', 'limit'],
    ['cursor=%25%25%25', 'cursor'],
  ];
  for (const [q, field] of cases) {
    const r = await org.live.get(`/api/v2/webhooks/deliveries?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', q);
    t.is(r.body.error?.field, field, q);
  }
});

test('a failing receiver leaves a failed delivery with the attempt recorded; replays (sync and queued) go on numbering', async (t) => {
  const org = await newOrg('launch');
  await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['professional.created'] });
  answers.set(org.id, 503);
  await org.live.post('/api/v2/providers', { externalId: 'replay-1', displayName: 'Dr. Replay' });
  const [first] = (await waitForDeliveries(org.live, 1, '&status=failed')).deliveries;
  t.like(first, { status: 'failed', attempt: 1, statusCode: 503, success: false });
  t.truthy(first.nextAttemptAt);
  const failedDetail = (await org.live.get(`/api/v2/webhooks/deliveries/${first.id}`)).body;
  t.like(failedDetail.attempts[0], { attempt: 1, statusCode: 503, success: false, manual: false });
  t.truthy(failedDetail.attempts[0].error);

  answers.set(org.id, 200);
  const sync = await org.live.post(`/api/v2/webhooks/deliveries/${first.id}/replay`);
  t.is(sync.status, 200, JSON.stringify(sync.body));
  t.like(sync.body, { delivered: true, statusCode: 200, attempt: 2 });
  t.true(Number.isInteger(sync.body.latencyMs));
  t.truthy(Date.parse(sync.body.replayedAt));
  const afterSync = (await org.live.get(`/api/v2/webhooks/deliveries/${first.id}`)).body;
  t.like(afterSync, { status: 'delivered', attempt: 2, statusCode: 200, success: true });
  t.deepEqual(
    afterSync.attempts.map((a: any) => [a.attempt, a.success, a.manual]),
    [
      [1, false, false],
      [2, true, true],
    ],
  );

  const queued = await org.live.post(`/api/v2/webhooks/${first.id}/replay`);
  t.is(queued.status, 200, JSON.stringify(queued.body));
  t.deepEqual(queued.body, { deliveryId: first.id, status: 'pending', attempt: 3 });
  const done = await waitForDelivery(org.live, first.id, (d) => d.attempt === 3 && d.status === 'delivered');
  t.deepEqual(
    done.attempts.map((a: any) => [a.attempt, a.manual]),
    [
      [1, false],
      [2, true],
      [3, true],
    ],
  );
  // Every attempt carried the same envelope id, numbered as recorded.
  const got = receiver.requests.filter(ofOrg(org.id, 'professional.created'));
  t.deepEqual(
    got.map((r) => r.body.attempt),
    [1, 2, 3],
  );
  t.is(new Set(got.map((r) => r.body.id)).size, 1);
  t.is(got[0]!.headers['webhook-id'], first.eventId);
  // Both replays are audited.
  t.is((await org.live.get('/api/v2/audit-events?action=webhook_delivery.replay')).body.data.length, 2);
});

test('replays: plan gating, live keys only, unknown ids, another organization’s delivery, suppressed test-mode deliveries', async (t) => {
  const launch = await newOrg('launch');
  const free = await newOrg('free');
  for (const org of [launch, free])
    await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['professional.created'] });
  await launch.live.post('/api/v2/providers', { externalId: 'gate-live', displayName: 'Dr. Live' });
  await free.live.post('/api/v2/providers', { externalId: 'gate-free', displayName: 'Dr. Free' });
  // An event caused with a test key is recorded as suppressed and never sent.
  await launch.test.post('/api/v2/providers', { externalId: 'gate-test', displayName: 'Dr. Test' });
  const launchDeliveries = (await waitForDeliveries(launch.live, 2)).deliveries;
  const liveOne = launchDeliveries.find((d: any) => d.status !== 'suppressed');
  const suppressed = launchDeliveries.find((d: any) => d.status === 'suppressed');
  t.truthy(liveOne);
  t.truthy(suppressed, JSON.stringify(launchDeliveries));
  t.like(suppressed, { attempt: 0, statusCode: null, latencyMs: null, success: null });
  const [freeOne] = (await waitForDeliveries(free.live, 1, '&status=delivered')).deliveries;

  const both = (id: string) => [`/api/v2/webhooks/deliveries/${id}/replay`, `/api/v2/webhooks/${id}/replay`];
  const expect = async (c: ReturnType<typeof client>, path: string, st: number, code: string) => {
    const r = await c.post(path);
    t.is(r.status, st, `${path}: ${JSON.stringify(r.body)}`);
    t.is(r.body.error?.code, code, path);
  };
  for (const path of both(freeOne.id)) await expect(free.live, path, 403, 'PLAN_UPGRADE_REQUIRED');
  for (const path of both(liveOne.id)) await expect(launch.test, path, 403, 'LIVE_KEY_REQUIRED');
  for (const path of both('whd_doesnotexist')) await expect(launch.live, path, 404, 'DELIVERY_NOT_FOUND');
  for (const path of both(suppressed.id)) await expect(launch.live, path, 422, 'DELIVERY_NOT_REPLAYABLE');
  // Another organization's delivery: 403 FORBIDDEN, like every resource by path id (the caller's plan allows replays).
  const other = await newOrg('scale');
  for (const path of both(freeOne.id)) await expect(other.live, path, 403, 'FORBIDDEN');
  const foreign = await other.live.get(`/api/v2/webhooks/deliveries/${freeOne.id}`);
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'FORBIDDEN');
  const unknown = await other.live.get('/api/v2/webhooks/deliveries/whd_doesnotexist');
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'DELIVERY_NOT_FOUND');
  // `deliveries` as an id goes to the queued replay, not to another route.
  await expect(launch.live, '/api/v2/webhooks/deliveries/replay', 404, 'DELIVERY_NOT_FOUND');
  // A plan slug the service does not know is not entitled.
  await svc.service.deps.db.query(
    `UPDATE organizations SET settings = jsonb_set(settings, '{plan}', '"platinum"') WHERE id = $1`,
    [free.id],
  );
  await expect(free.live, `/api/v2/webhooks/${freeOne.id}/replay`, 403, 'PLAN_UPGRADE_REQUIRED');

  // None of the refusals sent or queued anything.
  t.is(receiver.requests.filter(ofOrg(free.id)).length, 1);
  const untouched = (await launch.live.get(`/api/v2/webhooks/deliveries/${suppressed.id}`)).body;
  t.like(untouched, { status: 'suppressed', attempt: 0 });
  t.deepEqual(untouched.attempts, []);
  t.is(receiver.requests.filter((r) => r.body?.data?.externalId === 'gate-test').length, 0);
});

test('a queued replay of a delivery a sender holds a lease on is 409 DELIVERY_IN_PROGRESS', async (t) => {
  const org = await newOrg('enterprise');
  await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['professional.created'] });
  await org.live.post('/api/v2/providers', { externalId: 'lease-1', displayName: 'Dr. Lease' });
  const [d] = (await waitForDeliveries(org.live, 1, '&status=delivered')).deliveries;
  const until = new Date(svc.clock().getTime() + 30_000);
  await svc.service.deps.db.query('UPDATE webhook_deliveries SET lease_token = $2, lease_until = $3 WHERE id = $1', [
    d.id,
    'test-lease',
    until,
  ]);
  const r = await org.live.post(`/api/v2/webhooks/${d.id}/replay`);
  t.is(r.status, 409);
  t.is(r.body.error.code, 'DELIVERY_IN_PROGRESS');
  t.true(r.body.error.recoverable);
  t.like((await org.live.get(`/api/v2/webhooks/deliveries/${d.id}`)).body, { status: 'delivered', attempt: 1 });
  // Once the lease has expired the replay is queued.
  await svc.service.deps.db.query('UPDATE webhook_deliveries SET lease_until = $2 WHERE id = $1', [
    d.id,
    new Date(svc.clock().getTime() - 1),
  ]);
  const ok = await org.live.post(`/api/v2/webhooks/${d.id}/replay`);
  t.deepEqual(ok.body, { deliveryId: d.id, status: 'pending', attempt: 2 });
});

test('the gRPC door: WebhookService answers like REST, errors carry the contract code in trailers', async (t) => {
  const org = await newOrg('launch');
  const grpc = new WebhookServiceClient(svc.grpcTarget, credentials.createInsecure());
  const md = (key: string) => {
    const m = new Metadata();
    m.set('authorization', `Bearer ${key}`);
    m.set('service-organization-id', org.id);
    return m;
  };
  const call = <T>(fn: (cb: (err: ServiceError | null, res: T) => void) => void) =>
    new Promise<T>((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
  try {
    const missing = (await t.throwsAsync(
      call((cb) => grpc.getWebhook({}, md(liveKey), cb)),
    )) as unknown as ServiceError;
    t.is(missing.code, status.NOT_FOUND);
    t.is(errorCodeOfTrailers(missing.metadata), 'WEBHOOK_NOT_CONFIGURED');

    const put = await call<unknown>((cb) =>
      grpc.updateWebhook(
        typedRequest('UpdateWebhook', { body: { url: receiver.url, events: ['professional.created'] } }),
        md(liveKey),
        cb,
      ),
    );
    const created = restOfResponse('UpdateWebhook', put);
    t.regex(created.secret, SECRET);
    const read = restOfResponse('GetWebhook', await call<unknown>((cb) => grpc.getWebhook({}, md(liveKey), cb)));
    t.deepEqual(read, (await org.live.get('/api/v2/webhooks')).body);

    const bad = (await t.throwsAsync(
      call((cb) =>
        grpc.updateWebhook(
          typedRequest('UpdateWebhook', { body: { url: receiver.url, events: ['professional.created', 'nope'] } }),
          md(liveKey),
          cb,
        ),
      ),
    )) as unknown as ServiceError;
    t.is(bad.code, status.INVALID_ARGUMENT);
    t.is(decodeServiceError(bad).field, 'events.1');

    const testKey = (await t.throwsAsync(
      call((cb) => grpc.testWebhook({}, md(svc.platformKey), cb)),
    )) as unknown as ServiceError;
    t.is(testKey.code, status.PERMISSION_DENIED);
    t.is(errorCodeOfTrailers(testKey.metadata), 'LIVE_KEY_REQUIRED');

    await org.live.post('/api/v2/providers', { externalId: 'grpc-1', displayName: 'Dr. gRPC' });
    await waitForDeliveries(org.live, 1, '&status=delivered');
    const list = restOfResponse(
      'ListWebhookDeliveries',
      await call<unknown>((cb) =>
        grpc.listWebhookDeliveries(
          typedRequest('ListWebhookDeliveries', { query: { status: 'delivered' } }),
          md(liveKey),
          cb,
        ),
      ),
    );
    t.is(list.total, 1);
    t.deepEqual(list, (await org.live.get('/api/v2/webhooks/deliveries?status=delivered')).body);
    const id = list.deliveries[0].id;
    const queued = restOfResponse(
      'QueueWebhookDeliveryReplay',
      await call<unknown>((cb) => grpc.queueWebhookDeliveryReplay({ deliveryId: id }, md(liveKey), cb)),
    );
    t.deepEqual(queued, { deliveryId: id, status: 'pending', attempt: 2 });
    const notFound = (await t.throwsAsync(
      call((cb) => grpc.getWebhookDelivery({ id: 'whd_nope' }, md(liveKey), cb)),
    )) as unknown as ServiceError;
    t.is(notFound.code, status.NOT_FOUND);
    t.is(errorCodeOfTrailers(notFound.metadata), 'DELIVERY_NOT_FOUND');
  } finally {
    grpc.close();
  }
});

test('openapi.json and capabilities.json describe every webhook route', async (t) => {
  const openapi = (await client(svc.url).get('/openapi.json')).body;
  const caps = (await client(svc.url).get('/capabilities.json')).body;
  const routes: [string, string, string][] = [
    ['get', '/api/v2/webhooks', 'GetWebhook'],
    ['put', '/api/v2/webhooks', 'UpdateWebhook'],
    ['post', '/api/v2/webhooks/test', 'TestWebhook'],
    ['get', '/api/v2/webhooks/deliveries', 'ListWebhookDeliveries'],
    ['get', '/api/v2/webhooks/deliveries/{id}', 'GetWebhookDelivery'],
    ['post', '/api/v2/webhooks/deliveries/{id}/replay', 'ReplayWebhookDelivery'],
    ['post', '/api/v2/webhooks/{deliveryId}/replay', 'QueueWebhookDeliveryReplay'],
  ];
  for (const [method, path, rpc] of routes) {
    const op = openapi.paths[path]?.[method];
    t.truthy(op, `${method} ${path}`);
    t.is(op['x-grpc-method'], `scheduling.v1.WebhookService/${rpc}`);
    t.true(
      caps.endpoints.some(
        (e: any) =>
          e.method === method.toUpperCase() &&
          e.path === path.replace(/\{(\w+)\}/g, ':$1') &&
          e.grpc === `scheduling.v1.WebhookService/${rpc}`,
      ),
      `${method} ${path} in capabilities`,
    );
  }
  const replay = openapi.paths['/api/v2/webhooks/deliveries/{id}/replay'].post;
  t.true(replay.responses['403']['x-error-codes'].includes('PLAN_UPGRADE_REQUIRED'));
  t.true(replay.responses['422']['x-error-codes'].includes('DELIVERY_NOT_REPLAYABLE'));
  t.true(replay.responses['409']['x-error-codes'].includes('DELIVERY_IN_PROGRESS'));
  t.deepEqual(openapi.paths['/api/v2/webhooks'].put.requestBody.content['application/json'].schema.required.sort(), [
    'events',
    'url',
  ]);
});
