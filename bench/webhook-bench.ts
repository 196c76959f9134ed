import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { newId } from '../src/persistence/new-id.js';
import { client } from '../test/helpers/http.js';
import { createLivePlatformKey } from '../test/helpers/live-platform-key.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';
import { shareOfRaw, type BenchRow } from './bench-report.js';
import { runClosedLoop } from './closed-loop.js';
import { latencyStats } from './latency-stats.js';
import type { RawBaseline } from './raw-baseline.js';
import { ms, perSec } from './report-table.js';

/** What the webhook scenarios measured. */
export interface WebhookBenchResult {
  rows: BenchRow[];
  throughput: { events: number; drainMs: number; perSecond: number; readsPerSecond: number; readP99Ms: number };
  fairness: { events: number; p50Ms: number; p99Ms: number; maxMs: number; hangingInFlight: number };
}

/**
 * Webhook delivery scenarios against a running service (started with WEBHOOK_ALLOW_INSECURE_URLS=1):
 * 1. throughput: `events` live events put into the outbox at once (one SQL insert, as `storeEvent` writes them) for
 *    an organization whose local receiver answers 200 at once, while clients (default 8) keep reading GET /api/v2/webhooks; the
 *    rate is events received / time from the insert to the last arrival;
 * 2. fairness: organization A's receiver never answers (its deliveries hold their slots for the 10 s timeout) while
 *    organization B creates providers through the API, 10 per second; B's latency is from sending the create to
 *    the receiver getting the event.
 */
export async function benchWebhooks(o: {
  url: string;
  platformKey: string;
  databaseUrl: string;
  raw: RawBaseline;
  events?: number;
  readers?: number;
  fairnessSeconds?: number;
  log: (line: string) => void;
}): Promise<WebhookBenchResult> {
  const events = o.events ?? 5000;
  const receiver = await startWebhookReceiver();
  const hanging = await startWebhookReceiver();
  hanging.answer(() => 'hang');
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    // Webhooks are configured with a live key, which the API makes only for live keys: stored as the operator CLI does.
    const liveKey = await createLivePlatformKey({ databaseUrl: o.databaseUrl }, o.platformKey);
    const newOrg = async (name: string, url: string) => {
      const org = (
        await client(o.url, liveKey).post('/api/v2/organizations', {
          externalId: `${name}-${Date.now()}`,
          name,
          settings: { plan: 'launch' },
        })
      ).body;
      const c = client(o.url, liveKey, { 'service-organization-id': org.id });
      const put = await c.put('/api/v2/webhooks', { url, events: ['*'] });
      if (put.status !== 200) throw new Error(`PUT /api/v2/webhooks: ${put.status} ${JSON.stringify(put.body)}`);
      return { id: org.id as string, platformId: org.platformId as string | undefined, c };
    };

    // 1. Throughput.
    const bulk = await newOrg('webhook-throughput', receiver.url);
    const platformId = (await db.query('SELECT platform_id FROM organizations WHERE id = $1', [bulk.id])).rows[0]
      .platform_id as string;
    o.log(
      `webhooks: ${events} events into the outbox, receiver answers 200 at once, ${o.readers ?? 8} clients reading GET /api/v2/webhooks meanwhile`,
    );
    const now = new Date();
    const ids = Array.from({ length: events }, () => newId('evt', now.getTime()));
    const inserted = performance.now();
    await db.query(
      `INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
       SELECT id, $2, $3, 'professional.updated', '2026-11-01', 'live', jsonb_build_object('providerId', 'prv_bench', 'externalId', id, 'profileVersion', 2), $4
         FROM unnest($1::text[]) AS id`,
      [ids, platformId, bulk.id, now],
    );
    let drained = false;
    const reads = runClosedLoop({
      concurrency: o.readers ?? 8,
      durationMs: 120_000,
      task: async () => {
        if (drained) return 'stop';
        const t0 = performance.now();
        const r = await bulk.c.get('/api/v2/webhooks');
        return r.status === 200 ? performance.now() - t0 : 'fail';
      },
    });
    await receiver.waitFor(events, undefined, 120_000);
    const drainMs = performance.now() - inserted;
    drained = true;
    const readRun = await reads;
    const readStats = latencyStats(readRun.latencies);
    const perSecond = events / (drainMs / 1000);
    const readsPerSecond = readRun.latencies.length / (readRun.elapsedMs / 1000);
    o.log(
      `  ${perSec(perSecond)} delivered events/s (${events} in ${ms(drainMs)}); reads meanwhile ${perSec(readsPerSecond)}, p99 ${ms(readStats.p99)}`,
    );

    // 2. Fairness: A hangs, B's latency.
    const seconds = o.fairnessSeconds ?? 10;
    const slow = await newOrg('webhook-hanging', hanging.url);
    const fast = await newOrg('webhook-fast', receiver.url);
    o.log(
      `webhooks: organization A's receiver never answers (200 events queued), B creates 10 providers/s for ${seconds} s`,
    );
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        slow.c.post('/api/v2/providers', { externalId: `hang-${i}`, displayName: `Dr. Hang ${i}` }),
      ),
    );
    await hanging.waitFor(1, undefined, 10_000);
    const sentAt = new Map<string, number>();
    const n = seconds * 10;
    for (let i = 0; i < n; i++) {
      const t0 = Date.now();
      const r = await fast.c.post('/api/v2/providers', { externalId: `fast-${i}`, displayName: `Dr. Fast ${i}` });
      if (r.body?.id) sentAt.set(r.body.id, t0);
      await new Promise((res) => setTimeout(res, Math.max(0, t0 + 100 - Date.now())));
    }
    const arrived = await receiver.waitFor(sentAt.size, (r) => r.body?.organizationId === fast.id, 30_000);
    const latencies = arrived
      .map((r) => r.receivedAt - sentAt.get(r.body.data.providerId)!)
      .filter((x) => Number.isFinite(x));
    const f = latencyStats(latencies);
    const hangingInFlight = hanging.requests.length;
    o.log(
      `  B: ${latencies.length} events, created -> received p50 ${ms(f.p50)}, p99 ${ms(f.p99)}, max ${ms(f.max)}; A's receiver got ${hangingInFlight} requests`,
    );

    const rows: BenchRow[] = [
      {
        id: 'webhooks.throughput',
        group: 'webhooks',
        label: `${events} outbox events -> local receiver (200 at once), ${o.readers ?? 8} clients reading meanwhile`,
        rate: perSecond,
        unit: 'events',
        ...shareOfRaw(o.raw, perSecond, 8),
        answers: `drained in ${ms(drainMs)}; reads meanwhile ${perSec(readsPerSecond)}, p50/p99 ${ms(readStats.p50)}/${ms(readStats.p99)}`,
      },
      {
        id: 'webhooks.fairness',
        group: 'webhooks',
        label: "org B's delivery latency while org A's receiver never answers",
        p50: f.p50,
        p99: f.p99,
        answers: `${latencies.length} events created -> received; max ${ms(f.max)}; A's receiver got ${hangingInFlight} requests, none answered (8 in flight per org at most)`,
      },
    ];
    return {
      rows,
      throughput: { events, drainMs, perSecond, readsPerSecond, readP99Ms: readStats.p99 },
      fairness: { events: latencies.length, p50Ms: f.p50, p99Ms: f.p99, maxMs: f.max, hangingInFlight },
    };
  } finally {
    await db.end();
    await receiver.stop();
    await hanging.stop();
  }
}
