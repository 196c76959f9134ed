import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { client } from '../test/helpers/http.js';
import { createLivePlatformKey } from '../test/helpers/live-platform-key.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';
import { p99OfRaw, type BenchRow } from './bench-report.js';
import { latencyStats } from './latency-stats.js';
import type { RawBaseline } from './raw-baseline.js';
import { ms } from './report-table.js';

/** What the waitlist offer scenario measured (ms). */
export interface WaitlistOfferBenchResult {
  rows: BenchRow[];
  rounds: number;
  /** From the cancel's answer to `waitlist.offered` received by the webhook receiver. */
  delivered: { p50: number; p99: number; max: number };
  /** From the cancel's answer to the event's `created_at` (the offer committed, in the service's clock). */
  offered: { p50: number; p99: number };
}

/**
 * A cancel that triggers a waitlist offer (issue 24), against a running service started with
 * WEBHOOK_ALLOW_INSECURE_URLS=1: a live organization (live key, as the operator CLI stores one) with one provider open
 * 08:00-20:00 UTC every day and a webhook for `waitlist.offered` to a real loopback receiver. Each round books the
 * first free slot, puts one customer on the waitlist and cancels the booking; the figure is the time from the
 * cancel's answer to the receiver getting that entry's `waitlist.offered` (the trigger's job, the woken offer worker,
 * a narrowed resolution and hold, the outbox, the webhook dispatcher and sender). Rounds run one after the other.
 */
export async function benchWaitlistOffer(o: {
  url: string;
  platformKey: string;
  databaseUrl: string;
  raw: RawBaseline;
  rounds?: number;
  log: (line: string) => void;
}): Promise<WaitlistOfferBenchResult> {
  const rounds = o.rounds ?? 50;
  const receiver = await startWebhookReceiver();
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const liveKey = await createLivePlatformKey({ databaseUrl: o.databaseUrl }, o.platformKey);
    const org = (
      await client(o.url, liveKey).post('/api/v2/organizations', {
        externalId: `waitlist-bench-${Date.now()}`,
        name: 'waitlist bench',
        settings: { plan: 'launch' },
      })
    ).body;
    const c = client(o.url, liveKey, { 'service-organization-id': org.id });
    const must = async (what: string, p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      if (r.status !== 200 && r.status !== 201) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    await must('PUT /api/v2/webhooks', c.put('/api/v2/webhooks', { url: receiver.url, events: ['waitlist.offered'] }));
    const provider = await must(
      'POST /api/v2/providers',
      c.post('/api/v2/providers', { externalId: 'wl-p1', displayName: 'Dr. Waitlist' }),
    );
    const service = await must(
      'POST /api/v2/services',
      c.post('/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 30 }),
    );
    const day = { enabled: true, slots: [{ start: '08:00', end: '20:00' }] };
    const days = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
    );
    await must(
      'POST /api/v2/calendar-connections',
      c.post('/api/v2/calendar-connections', { providerId: provider.id, timezone: 'UTC', days }),
    );
    const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 8 * 86_400_000).toISOString().slice(0, 10);
    o.log(
      `waitlist: ${rounds} rounds of book, join the waitlist, cancel; cancel answered -> waitlist.offered at a local receiver`,
    );
    const delivered: number[] = [];
    const offered: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const r = await must(
        'POST /api/v2/resolutions',
        c.post(
          '/api/v2/resolutions',
          { serviceId: service.id, dateRange: { from, to }, maxOptionsPerProvider: 1 },
          { 'idempotency-key': randomUUID() },
        ),
      );
      if (!r.options?.[0]) throw new Error(`round ${i}: no free slot left: ${JSON.stringify(r)}`);
      const booking = await must(
        'confirm',
        c.post(
          `/api/v2/resolutions/${r.resolutionId}/confirm`,
          { optionId: r.options[0].optionId, customer: { name: 'Pat', email: 'pat@example.com' } },
          { 'idempotency-key': randomUUID() },
        ),
      );
      const entry = await must(
        'POST /api/v2/waitlist',
        c.post('/api/v2/waitlist', { serviceId: service.id, customer: { name: `C${i}`, email: `c${i}@example.com` } }),
      );
      await must('cancel', c.post(`/api/v1/bookings/${booking.id}/cancel`, {}));
      const answeredAt = Date.now();
      const [got] = await receiver.waitFor(
        1,
        (w) => w.body?.type === 'waitlist.offered' && w.body?.data?.entryId === entry.id,
        30_000,
      );
      delivered.push(got!.receivedAt - answeredAt);
      const ev = await db.query(
        `SELECT created_at FROM events WHERE organization_id = $1 AND type = 'waitlist.offered' AND data->>'entryId' = $2`,
        [org.id, entry.id],
      );
      offered.push((ev.rows[0].created_at as Date).getTime() - answeredAt);
    }
    const d = latencyStats(delivered);
    const f = latencyStats(offered);
    o.log(
      `  cancel -> waitlist.offered delivered p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}; offer committed p50 ${ms(f.p50)}, p99 ${ms(f.p99)}`,
    );
    return {
      rounds,
      delivered: { p50: d.p50, p99: d.p99, max: d.max },
      offered: { p50: f.p50, p99: f.p99 },
      rows: [
        {
          id: 'waitlist.cancel-to-offer-delivered',
          group: 'waitlist',
          label: `a cancel that triggers a waitlist offer: cancel answered -> waitlist.offered delivered to a local receiver, ${rounds} rounds`,
          p50: d.p50,
          p99: d.p99,
          ...p99OfRaw(o.raw, d.p99, 1),
          answers: `${delivered.length}/${rounds} delivered, max ${ms(d.max)}; the offer itself (event written) p50/p99 ${ms(f.p50)}/${ms(f.p99)} after the cancel's answer`,
        },
      ],
    };
  } finally {
    await db.end().catch(() => undefined);
    await receiver.stop();
  }
}
