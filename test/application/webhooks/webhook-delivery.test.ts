import test from 'ava';
import { createHmac } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import type { OutboundLookup } from '../../../src/application/outbound/guarded-lookup.js';
import { client } from '../../helpers/http.js';
import type { TestService } from '../../helpers/test-service.js';
import { startWebhookFixture, type WebhookFixture } from '../../helpers/webhook-fixture.js';
import type { ReceivedWebhook, WebhookReceiver } from '../../helpers/webhook-receiver.js';

// One service that may target the local receiver (WEBHOOK_ALLOW_INSECURE_URLS=1) with the default retry delays, and
// one with the production rules whose DNS the test steers. Serial: the retry and rotation tests move the shared clock.
let svc: TestService;
let strict: TestService;
let receiver: WebhookReceiver;

/** What the strict service's injected DNS answers for rebind.example.test (changed by the SSRF test). */
let rebindAddress = '93.184.216.34';
const steeredLookup = ((
  host: string,
  _opts: unknown,
  cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void,
) => {
  if (host !== 'rebind.example.test')
    return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(null, [{ address: rebindAddress, family: 4 }]);
}) as unknown as OutboundLookup;

let fixture: WebhookFixture;
/** Receiver answers per organization: a status (default 200) or 'hang'. */
let answers: Map<string, number | 'hang'>;

test.before(async () => {
  fixture = await startWebhookFixture({ lookup: steeredLookup, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  ({ svc, strict, receiver, answers } = fixture);
});
test.after.always(async () => {
  await fixture?.stop();
});

/** A fresh organization (plan launch) with live and test clients acting in it. */
const newOrg = (s: TestService = svc) => fixture.newOrg({ service: s });

/** Configures the org's webhook through the API; answers its secret. */
async function configure(org: Awaited<ReturnType<typeof newOrg>>, body: Record<string, unknown>): Promise<string> {
  const r = await org.live.put('/api/v2/webhooks', { url: receiver.url, events: ['*'], ...body });
  if (r.status !== 200) throw new Error(`PUT /api/v2/webhooks: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.secret;
}

let providerCount = 0;
/** Creates a provider (one professional.created event) with a client. */
async function addProvider(c: ReturnType<typeof client>): Promise<string> {
  const r = await c.post('/api/v2/providers', {
    externalId: `whd-p-${++providerCount}`,
    displayName: `Dr. Hook ${providerCount}`,
  });
  if (r.status !== 201 && r.status !== 200)
    throw new Error(`POST /api/v2/providers: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

const ofOrg = (orgId: string) => (r: ReceivedWebhook) => r.body?.organizationId === orgId;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls a query until `ok` holds of its rows (bounded). */
async function waitForRows(
  s: TestService,
  sql: string,
  params: unknown[],
  ok: (rows: any[]) => boolean,
  timeoutMs = 10_000,
): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = (await s.service.deps.db.query(sql, params)).rows;
    if (ok(rows)) return rows;
    if (Date.now() > until) throw new Error(`rows did not reach the expected state: ${JSON.stringify(rows)}`);
    await pause(25);
  }
}

/** The headers of a received request as a plain string map (what a receiver hands standardwebhooks). */
const headersOf = (r: ReceivedWebhook) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
const hmacHex = (secret: string, text: string) =>
  createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(text)
    .digest('hex');

test.serial('a live event arrives signed in both forms, with the contract headers and envelope', async (t) => {
  const org = await newOrg();
  const secret = await configure(org, { events: ['professional.created'] });
  const providerId = await addProvider(org.live);
  const [got] = await receiver.waitFor(1, ofOrg(org.id));
  const h = got!.headers;
  t.regex(String(h['user-agent']), /^scheduling-resolution-service-webhooks\/\d+\.\d+\.\d+$/);
  t.is(h['content-type'], 'application/json');
  t.like(got!.body, {
    type: 'professional.created',
    apiVersion: '2026-11-01',
    organizationId: org.id,
    attempt: 1,
    data: { providerId },
  });
  t.regex(got!.body.id, /^evt_/);
  t.is(h['webhook-id'], got!.body.id);
  t.is(h['webhook-timestamp'], h['x-service-timestamp']);
  // A Standard Webhooks receiver verifies it with the secret; another secret fails.
  t.deepEqual(new Webhook(secret).verify(got!.rawBody, headersOf(got!)), got!.body);
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.rawBody, headersOf(got!)));
  // The authoritative form, recomputed as a receiver would.
  t.is(h['x-service-signature'], `sha256=${hmacHex(secret, `${h['x-service-timestamp']}.${got!.rawBody}`)}`);

  const [row] = await waitForRows(
    svc,
    'SELECT * FROM webhook_deliveries WHERE organization_id = $1',
    [org.id],
    (rows) => rows[0]?.status === 'delivered',
  );
  t.like(row, {
    event_id: got!.body.id,
    event_type: 'professional.created',
    attempt: 1,
    status_code: 200,
    success: true,
    next_attempt_at: null,
    lease_token: null,
  });
  t.regex(row.id, /^whd_/);
  const attempts = (await svc.service.deps.db.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1', [row.id]))
    .rows;
  t.is(attempts.length, 1);
  t.like(attempts[0], { attempt: 1, manual: false, status_code: 200, success: true, error: null });
});

test.serial(
  'failed attempts retry on the configured delays (injected clock), then dead-letter after the fifth',
  async (t) => {
    const org = await newOrg();
    answers.set(org.id, 500);
    await configure(org, {});
    await addProvider(org.live);
    await receiver.waitFor(1, ofOrg(org.id));
    const delays = svc.config.webhookRetryDelaysSeconds;
    t.deepEqual(delays, [60, 300, 1800, 7200]);
    for (const [i, delay] of delays.entries()) {
      // Each failure is recorded before the next is due; nothing is sent a second before the delay has passed.
      await waitForRows(
        svc,
        'SELECT status, attempt FROM webhook_deliveries WHERE organization_id = $1',
        [org.id],
        (rows) => rows[0]?.attempt === i + 1 && rows[0]?.status === 'failed',
      );
      svc.clock.advance((delay - 1) * 1000);
      await pause(600);
      t.is(receiver.requests.filter(ofOrg(org.id)).length, i + 1, `attempt ${i + 2} waits ${delay} s`);
      svc.clock.advance(1000);
      await receiver.waitFor(i + 2, ofOrg(org.id));
    }
    const [row] = await waitForRows(
      svc,
      'SELECT * FROM webhook_deliveries WHERE organization_id = $1',
      [org.id],
      (rows) => rows[0]?.status === 'dead_lettered',
    );
    t.like(row, {
      attempt: 5,
      automatic_attempts: 5,
      status_code: 500,
      success: false,
      next_attempt_at: null,
      lease_token: null,
    });
    const got = receiver.requests.filter(ofOrg(org.id));
    t.deepEqual(
      got.map((r) => r.body.attempt),
      [1, 2, 3, 4, 5],
    );
    t.is(new Set(got.map((r) => r.body.id)).size, 1, 'the envelope id is stable across retries');
    t.true(got.every((r) => r.headers['webhook-id'] === r.body.id));
    const attempts = (
      await svc.service.deps.db.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [
        row.id,
      ])
    ).rows;
    t.deepEqual(
      attempts.map((a) => [a.attempt, a.manual, a.status_code, a.success]),
      [1, 2, 3, 4, 5].map((n) => [n, false, 500, false]),
    );
    t.true(attempts.every((a) => a.latency_ms >= 0 && /500/.test(a.error)));
    // Attempts were made at 0, 60, 360, 2160 and 9360 s of the injected clock.
    const t0 = attempts[0].attempted_at.getTime();
    t.deepEqual(
      attempts.map((a) => (a.attempted_at.getTime() - t0) / 1000),
      [0, 60, 360, 2160, 9360],
    );
    svc.clock.advance(86_400_000);
    await pause(500);
    t.is(receiver.requests.filter(ofOrg(org.id)).length, 5, 'nothing after the dead letter');
    answers.delete(org.id);
  },
);

test.serial('test-mode events are recorded suppressed and never sent', async (t) => {
  const org = await newOrg();
  await configure(org, {});
  await addProvider(org.test);
  const [row] = await waitForRows(
    svc,
    'SELECT * FROM webhook_deliveries WHERE organization_id = $1',
    [org.id],
    (rows) => rows.length === 1,
  );
  t.like(row, { status: 'suppressed', next_attempt_at: null, attempt: 0 });
  // A live event after it arrives; the test one never does.
  await addProvider(org.live);
  await receiver.waitFor(1, ofOrg(org.id));
  await pause(400);
  t.deepEqual(
    receiver.requests.filter(ofOrg(org.id)).map((r) => r.body.id),
    [
      (
        await svc.service.deps.db.query(
          `SELECT event_id FROM webhook_deliveries WHERE organization_id = $1 AND status <> 'suppressed'`,
          [org.id],
        )
      ).rows[0].event_id,
    ],
  );
});

test.serial('an inactive webhook and an unsubscribed type record no delivery', async (t) => {
  const inactive = await newOrg();
  await configure(inactive, { active: false });
  const unsubscribed = await newOrg();
  await configure(unsubscribed, { events: ['booking.confirmed'] });
  await addProvider(inactive.live);
  await addProvider(unsubscribed.live);
  // Wait until the dispatcher has passed both events.
  await waitForRows(
    svc,
    'SELECT dispatched_at FROM events WHERE organization_id = ANY($1)',
    [[inactive.id, unsubscribed.id]],
    (rows) => rows.length === 2 && rows.every((r) => r.dispatched_at !== null),
  );
  const n = (
    await svc.service.deps.db.query(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ANY($1)',
      [[inactive.id, unsubscribed.id]],
    )
  ).rows[0].n;
  t.is(n, 0);
  await pause(300);
  t.is(
    receiver.requests.filter(
      (r) => r.body?.organizationId === inactive.id || r.body?.organizationId === unsubscribed.id,
    ).length,
    0,
  );
});

test.serial('after a rotation both secrets verify for 24 hours, then only the new one', async (t) => {
  const org = await newOrg();
  const realNow = Date.now();
  // The rotation happens 24 h minus 1 minute before the real now, so deliveries signed at real time pass the 5-minute
  // timestamp check of standardwebhooks.
  svc.clock.set(new Date(realNow - 86_400_000 + 60_000));
  const oldSecret = await configure(org, {});
  const newSecret = await configure(org, { rotateSecret: true });
  t.not(oldSecret, newSecret);

  svc.clock.set(new Date(realNow));
  await addProvider(org.live);
  const [during] = await receiver.waitFor(1, ofOrg(org.id));
  t.truthy(new Webhook(newSecret).verify(during!.rawBody, headersOf(during!)));
  t.truthy(
    new Webhook(oldSecret).verify(during!.rawBody, headersOf(during!)),
    'the previous secret still verifies during the overlap',
  );
  t.is(String(during!.headers['webhook-signature']).split(' ').length, 2);
  const ts = during!.headers['x-service-timestamp'];
  t.is(
    during!.headers['x-service-signature'],
    `sha256=${hmacHex(newSecret, `${ts}.${during!.rawBody}`)},sha256=${hmacHex(oldSecret, `${ts}.${during!.rawBody}`)}`,
  );

  svc.clock.set(new Date(realNow + 120_000));
  await addProvider(org.live);
  const after = (await receiver.waitFor(2, ofOrg(org.id)))[1]!;
  t.truthy(new Webhook(newSecret).verify(after.rawBody, headersOf(after)));
  t.throws(
    () => new Webhook(oldSecret).verify(after.rawBody, headersOf(after)),
    undefined,
    'the previous secret no longer signs after 24 h',
  );
  t.is(
    after.headers['x-service-signature'],
    `sha256=${hmacHex(newSecret, `${after.headers['x-service-timestamp']}.${after.rawBody}`)}`,
  );
  svc.clock.set(new Date());
});

test.serial(
  'a name that resolved to a public address at configuration and to 127.0.0.1 at send is refused without connecting',
  async (t) => {
    const org = await newOrg(strict);
    rebindAddress = '93.184.216.34';
    const put = await org.live.put('/api/v2/webhooks', {
      url: `https://rebind.example.test:${receiver.port}/hook`,
      events: ['*'],
    });
    t.is(put.status, 200, JSON.stringify(put.body));
    rebindAddress = '127.0.0.1';
    const connectionsBefore = receiver.connections();
    await addProvider(org.live);
    const [row] = await waitForRows(
      strict,
      'SELECT * FROM webhook_deliveries WHERE organization_id = $1',
      [org.id],
      (rows) => rows[0]?.attempt === 1,
    );
    t.like(row, { status: 'failed', status_code: null, success: false });
    const [attempt] = (
      await strict.service.deps.db.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1', [row.id])
    ).rows;
    t.regex(attempt.error, /refused to connect: rebind\.example\.test resolves to 127\.0\.0\.1 is a loopback address/);
    t.is(receiver.connections(), connectionsBefore, 'no TCP connection reached the loopback receiver');
    t.is(receiver.requests.filter(ofOrg(org.id)).length, 0);
  },
);

test.serial("one organization's hanging receiver does not delay another's deliveries", async (t) => {
  const slow = await newOrg();
  const fast = await newOrg();
  answers.set(slow.id, 'hang');
  await configure(slow, {});
  await configure(fast, {});
  for (let i = 0; i < 12; i++) await addProvider(slow.live);
  await receiver.waitFor(8, ofOrg(slow.id));
  const latencies: number[] = [];
  for (let i = 0; i < 5; i++) {
    const sent = Date.now();
    await addProvider(fast.live);
    await receiver.waitFor(i + 1, ofOrg(fast.id), 5_000);
    latencies.push(Date.now() - sent);
  }
  t.true(Math.max(...latencies) < 1500, `fast organization's latencies ${latencies.join(', ')} ms`);
  // The slow organization holds at most 8 deliveries in flight (hanging), the rest wait.
  t.is(receiver.requests.filter(ofOrg(slow.id)).length, 8);
});
