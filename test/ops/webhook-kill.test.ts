import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createDatabase } from '../../src/persistence/database.js';
import { client } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestStores } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createLivePlatformKey } from '../helpers/live-platform-key.js';

// Two service processes (all roles) on shared PostgreSQL and Redis send one organization's webhooks to a real local
// receiver; one process is killed with SIGKILL in the middle of a burst of events.
let stores: TestStores;
let receiver: WebhookReceiver;
let processes: ServiceProcess[] = [];

test.after.always(async () => {
  for (const p of processes) await p.kill('SIGKILL').catch(() => undefined);
  await receiver?.stop();
  await stores?.stop();
});

test('kill -9 of one of two processes mid-burst loses no event and never sends one delivery twice at once', async (t) => {
  t.timeout(150_000);
  stores = await startTestStores();
  receiver = await startWebhookReceiver();
  // A short pause per answer keeps sends in flight, so the kill lands during some and overlapping sends would show.
  receiver.answer(() => ({ status: 200, delayMs: 15 }));
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  processes = await startServiceProcesses(2, {
    databaseUrl: stores.databaseUrl,
    redisUrl: stores.redisUrl,
    platformKey,
    name: 'webhook-kill',
    env: { WEBHOOK_ALLOW_INSECURE_URLS: '1', RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const [survivor, victim] = processes as [ServiceProcess, ServiceProcess];
  const liveKey = await createLivePlatformKey({ databaseUrl: stores.databaseUrl }, platformKey);
  const org = (
    await client(survivor.url, liveKey).post('/api/v2/organizations', {
      externalId: 'kill-org',
      name: 'Kill',
      settings: { plan: 'launch' },
    })
  ).body;
  const put = await client(survivor.url, liveKey, { 'service-organization-id': org.id }).put('/api/v2/webhooks', {
    url: receiver.url,
    events: ['professional.created'],
  });
  t.is(put.status, 200, JSON.stringify(put.body));

  // 200 creates over both processes, 8 at a time; the victim is killed after about 80 of them.
  const total = 200;
  let next = 0;
  let done = 0;
  let killed = false;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const target = i % 2 === 0 || killed ? survivor : victim;
      await client(target.url, liveKey, { 'service-organization-id': org.id })
        .post('/api/v2/providers', { externalId: `kill-${i}`, displayName: `Dr. Kill ${i}` })
        .catch(() => undefined); // requests to the killed process fail; what they committed is counted from the database
      if (++done === 80 && !killed) {
        killed = true;
        await victim.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.true(killed);

  const db = createDatabase(stores.databaseUrl);
  try {
    const events = (
      await db.query(`SELECT id FROM events WHERE organization_id = $1 AND type = 'professional.created'`, [org.id])
    ).rows.map((r) => r.id as string);
    t.true(events.length >= 150, `${events.length} events committed`);
    // Deliveries the victim held are sent again once its 30 s leases run out.
    const until = Date.now() + 100_000;
    let missing = events;
    while (missing.length > 0 && Date.now() < until) {
      const got = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
      missing = events.filter((id) => !got.has(id));
      if (missing.length > 0) await new Promise((r) => setTimeout(r, 250));
    }
    t.deepEqual(missing, [], 'every committed event reached the receiver');
    const statuses = (
      await db.query(
        `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 GROUP BY status`,
        [org.id],
      )
    ).rows;
    t.log('deliveries by status', statuses, 'requests', receiver.requests.length, 'events', events.length);

    // No two sends of one delivery overlapped: per webhook-id, each request began after the previous one was answered.
    const byId = new Map<string, { receivedAt: number; answeredAt: number }[]>();
    for (const r of receiver.requests) {
      const id = String(r.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), { receivedAt: r.receivedAt, answeredAt: r.answeredAt ?? Infinity }]);
    }
    let overlaps = 0;
    for (const spans of byId.values()) {
      spans.sort((a, b) => a.receivedAt - b.receivedAt);
      for (let i = 1; i < spans.length; i++) if (spans[i]!.receivedAt < spans[i - 1]!.answeredAt) overlaps++;
    }
    t.is(overlaps, 0);
  } finally {
    await db.close();
  }
});
