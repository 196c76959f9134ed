import test from 'ava';
import { randomUUID } from 'node:crypto';
import { TIMER_KEYS } from '../../src/persistence/redis-keys.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import type { JsonResponse } from '../helpers/http.js';
import { startTestRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { createTestClock } from '../helpers/test-clock.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTestService, type TestService, type TestStores } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The service on a real Redis Cluster (3 masters, 3 replicas on loopback), configured by REDIS_CLUSTER_NODES. The tests
// run in order (serial): the failover test comes last, as it leaves one node dead.
let cluster: TestRedisCluster;
let stores: TestStores;
let svc: TestService;
let receiver: WebhookReceiver;
const clock = createTestClock('2026-03-02T12:00:00Z');

test.before(async () => {
  cluster = await startTestRedisCluster();
  const database = await createTestDatabase({ schema: 'migrated' });
  stores = {
    databaseUrl: database.url,
    redisUrl: cluster.url,
    redis: undefined,
    async stop() {
      await database.drop().catch(() => undefined);
    },
  };
  receiver = await startWebhookReceiver();
  svc = await startTestService({
    stores,
    clock,
    env: {
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      WEBHOOK_ALLOW_INSECURE_URLS: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
});
test.after.always(async () => {
  await svc?.stop().catch(() => undefined);
  await stores?.stop();
  await receiver?.stop();
  await cluster?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An organization (launch plan: webhooks) with `providers` providers and a resolution over one day. */
async function resolved(name: string, providers = 1) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`, { plan: 'launch' });
  const ps: Awaited<ReturnType<typeof providerWithService>>[] = [];
  for (let i = 0; i < providers; i++) ps.push(await providerWithService(o, { externalId: `p${i}` }));
  const resolve = async () => {
    const r = await o.api.post(
      '/api/v2/resolutions',
      {
        serviceId: ps[0]!.service.id,
        dateRange: { from: '2026-03-03', to: '2026-03-04' },
        maxOptionsPerProvider: 3,
      },
      idem(),
    );
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body;
  };
  return { o, ps, r: await resolve(), resolve };
}

const eventsOf = async (orgId: string, type: string) =>
  (
    await svc.service.deps.db.query('SELECT data FROM events WHERE organization_id = $1 AND type = $2 ORDER BY id', [
      orgId,
      type,
    ])
  ).rows.map((r) => r.data);

test.serial('the booking flow and the inspector run on the cluster, its keys spread over the masters', async (t) => {
  const { o, r } = await resolved('flow');
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const [a] = r.options;
  const held = await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 60 });
  t.is(held.status, 200, JSON.stringify(held.body));
  const again = await o.api.post(`${base}/options/${a.optionId}/hold`);
  t.is(again.status, 409);
  const key = idem();
  const booking = await o.api.post(
    `${base}/confirm`,
    { optionId: a.optionId, holdId: held.body.holdId, customer },
    key,
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  t.is(booking.body.status, 'confirmed');
  const replay = await o.api.post(`${base}/confirm`, { optionId: a.optionId, holdId: held.body.holdId, customer }, key);
  t.is(replay.body.id, booking.body.id);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is((await o.api.get(`/api/v2/bookings/${booking.body.id}`)).body.status, 'confirmed');

  const view = await o.api.get(`/api/v2/inspector/actors/resolution/${r.resolutionId}`);
  t.is(view.status, 200, JSON.stringify(view.body));
  t.like(view.body, { kind: 'resolution', id: r.resolutionId, revision: 3 });
  t.deepEqual(
    view.body.history.map((h: any) => h.event),
    ['create', 'HOLD_STARTED', 'CONFIRMED'],
  );
  const hv = await o.api.get(`/api/v2/inspector/actors/hold/${held.body.holdId}`);
  t.like(hv.body, { kind: 'hold', state: 'consumed', status: 'done' });

  // A header call that writes nothing is recorded through the audit stream ({audit}:pending), drained to PostgreSQL.
  const read = await o.platform.get('/api/v2/providers');
  t.is(read.status, 200);
  const requestId = read.headers.get('x-service-request-id');
  let recorded = 0;
  for (let i = 0; i < 100 && recorded === 0; i++) {
    recorded = (await svc.service.deps.db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [requestId]))
      .rowCount!;
    if (recorded === 0) await sleep(100);
  }
  t.is(recorded, 1, 'the read was recorded within 10 s');

  // Really a cluster: the keys live on more than one master.
  const masters = new Set<number>();
  for (const n of cluster.nodes) {
    const role = String(await cluster.command(n.port, ['ROLE']).then((x) => (x as unknown[])[0]));
    const size = Number(await cluster.command(n.port, ['DBSIZE']));
    if (role === 'master' && size > 0) masters.add(n.port);
  }
  t.true(masters.size >= 2, `keys on ${masters.size} master(s)`);
});

test.serial('a hold expires through the durable timers (injected clock)', async (t) => {
  const { o, r } = await resolved('expiry');
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const [a] = r.options;
  const hold = (await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 60 })).body;
  t.truthy(hold.holdId, JSON.stringify(hold));
  clock.advance(61_000);
  try {
    let released: any[] = [];
    for (let i = 0; i < 100 && released.length === 0; i++) {
      released = (await eventsOf(o.org.id, 'option.released')).filter((e) => e.holdId === hold.holdId);
      if (released.length === 0) await sleep(100);
    }
    t.is(released.length, 1, 'the timer fired within 10 s');
    t.is(released[0]?.reason, 'expired');
    t.is((await o.api.get(`${base}/options/${a.optionId}/hold`)).body.status, 'expired');
  } finally {
    clock.set('2026-03-02T12:00:00Z');
  }
});

test.serial('a webhook is delivered to a loopback receiver', async (t) => {
  const { o, r } = await resolved('hook');
  const put = await o.api.put('/api/v2/webhooks', { url: receiver.url, events: ['booking.confirmed'] });
  t.is(put.status, 200, JSON.stringify(put.body));
  const base = `/api/v2/resolutions/${r.resolutionId}`;
  const booking = await o.api.post(`${base}/confirm`, { optionId: r.options[0].optionId, customer }, idem());
  t.is(booking.status, 200, JSON.stringify(booking.body));
  const [got] = await receiver.waitFor(1, (x) => x.body?.data?.bookingId === booking.body.id, 15_000);
  t.is(got?.body.type, 'booking.confirmed');
});

test.serial(
  'kill -9 of a master under bookings: 503s only in the gap, recovery without a restart, no acknowledged booking lost, no overlap',
  async (t) => {
    t.timeout(110_000);
    // Four clients book in a loop (resolve, hold the first option, confirm) across the kill, all racing for the same
    // earliest free slots of two providers, until 3 s after the replica's promotion.
    const { o, ps } = await resolved('failover', 2);
    const serviceId = ps[0]!.service.id as string;
    // The master of the timer index: every resolution and hold schedules there, so every booking meets the gap.
    const victim = await cluster.masterOf(TIMER_KEYS.due);

    const answers: { sentAt: number; at: number; status: number; what: string }[] = [];
    const hardStop = Date.now() + 70_000;
    let stopAt = hardStop;
    /** Sends until an answer other than 503 (bounded), recording every answer. */
    const until = async (what: string, send: () => Promise<JsonResponse>) => {
      for (;;) {
        const sentAt = Date.now();
        const res = await send();
        answers.push({ sentAt, at: Date.now(), status: res.status, what });
        if (res.status !== 503 || Date.now() > hardStop) return res;
        await sleep(100);
      }
    };
    const acknowledged: string[] = [];
    const undecided: string[] = [];
    const bookLoop = async () => {
      while (Date.now() < stopAt) {
        const resolution = await until('resolve', () =>
          o.api.post(
            '/api/v2/resolutions',
            { serviceId, dateRange: { from: '2026-03-03', to: '2026-03-10' }, maxOptionsPerProvider: 1 },
            idem(),
          ),
        );
        if (resolution.status !== 200) {
          undecided.push(`resolve ${resolution.status} ${JSON.stringify(resolution.body)}`);
          return;
        }
        const option = resolution.body.options?.[0];
        // Every slot taken (a fast machine books them all before the kill): go on resolving across the gap, each
        // resolution scheduling its expiry on the killed master.
        if (!option) {
          await sleep(50);
          continue;
        }
        const base = `/api/v2/resolutions/${resolution.body.resolutionId}`;
        const hold = await until('hold', () =>
          o.api.post(`${base}/options/${option.optionId}/hold`, { ttlSeconds: 600 }),
        );
        if (hold.status !== 200) {
          if (hold.status !== 409) undecided.push(`hold ${hold.status} ${JSON.stringify(hold.body)}`);
          continue;
        }
        const key = idem();
        const confirm = await until('confirm', () =>
          o.api.post(`${base}/confirm`, { optionId: option.optionId, holdId: hold.body.holdId, customer }, key),
        );
        if (confirm.status === 200) acknowledged.push(confirm.body.id);
        else if (confirm.status !== 409) undecided.push(`confirm ${confirm.status} ${JSON.stringify(confirm.body)}`);
      }
    };

    const clients = Promise.all([0, 1, 2, 3].map(async (i) => (await sleep(i * 150), bookLoop())));
    await sleep(1500);
    const killedAt = Date.now();
    await cluster.kill(victim);
    await cluster.waitHealthy(30_000);
    const promotedAt = Date.now();
    stopAt = promotedAt + 3000;
    await clients;
    t.log(`failover: replica promoted ${promotedAt - killedAt} ms after kill -9`);

    // 503s only between the kill and shortly after the promotion (the client re-reads the topology each second).
    const unavailable = answers.filter((s) => s.status === 503);
    const last = unavailable.at(-1);
    t.log(
      `answers: ${answers.length} (${answers.filter((a) => a.at > killedAt && a.at < promotedAt).length} in the gap), ` +
        `503s: ${unavailable.length}` +
        (last ? `, the last ${last.at - promotedAt} ms after the promotion` : ''),
    );
    // The bookings met the gap: requests were under way while the slot had no master. They were answered 503 (the
    // service's Redis commands failed) or, on a loaded host where the client's reconnection outlasted the gap, waited
    // and were served after the promotion: either way no 5xx but 503, nothing lost, no overlap (below).
    const acrossGap = answers.filter((a) => a.sentAt < promotedAt && a.at > killedAt);
    t.log(
      `requests under way in the gap: ${acrossGap.length} (${acrossGap.filter((a) => a.status === 503).length} answered 503)`,
    );
    t.true(acrossGap.length > 0, 'the bookings met the gap');
    for (const s of unavailable) {
      t.true(s.at >= killedAt, '503 before the kill');
      t.true(s.at <= promotedAt + 3000, `503 ${s.at - promotedAt} ms after the promotion`);
    }
    t.deepEqual(
      answers.filter((s) => s.status >= 500 && s.status !== 503),
      [],
    );
    // Every attempt ended in a booking or a definite 409 (the slot taken by another client).
    t.deepEqual(undecided, []);
    t.log(`acknowledged bookings: ${acknowledged.length}`);
    t.true(acknowledged.length >= 2, `${acknowledged.length} bookings`);

    // No acknowledged booking lost: each reads back confirmed, and the ledger holds exactly those.
    for (const id of acknowledged) {
      const read = await o.api.get(`/api/v2/bookings/${id}`);
      t.is(read.status, 200, JSON.stringify(read.body));
      t.is(read.body.status, 'confirmed');
    }
    const ledger = await svc.service.deps.db.query(
      `SELECT id, provider_id, start_at FROM bookings WHERE organization_id = $1 AND status = 'confirmed'`,
      [o.org.id],
    );
    t.deepEqual(ledger.rows.map((r) => r.id).sort(), [...acknowledged].sort());
    // No overlap: one confirmed booking per provider and start.
    const slots = ledger.rows.map((r) => `${r.provider_id}@${new Date(r.start_at).toISOString()}`);
    t.is(new Set(slots).size, slots.length, JSON.stringify(slots));

    // Recovered without a restart: a new booking goes through at once, and the process is ready.
    const { o: o2, r: r2 } = await resolved('after-failover');
    const after = await o2.api.post(
      `/api/v2/resolutions/${r2.resolutionId}/confirm`,
      { optionId: r2.options[0].optionId, customer },
      idem(),
    );
    t.is(after.status, 200, JSON.stringify(after.body));
    t.is((await o2.api.get('/readyz')).status, 200);
  },
);
