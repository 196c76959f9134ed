import { randomUUID } from 'node:crypto';
import { createDatabase } from '../src/persistence/database.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * A cancel that triggers a waitlist offer, alone (`npx tsx bench/waitlist-offer-quick.ts`): one service process on
 * fresh stores; each round books a slot, puts one entry on the waitlist and cancels the booking, then times from the
 * cancel request to the `waitlist.offered` event committed in the outbox (read every 2 ms). BENCH_WAITLIST_ROUNDS sets
 * the rounds (default 40).
 */
const rounds = Number(process.env.BENCH_WAITLIST_ROUNDS ?? 40);
const stores = await startBenchStores();
const platformKey = newPlatformKey();
const service = await startBenchService(stores, platformKey);
const db = createDatabase(stores.databaseUrl, { max: 2 });
const stop = async () => {
  await db.close().catch(() => undefined);
  await service.process.stop().catch(() => undefined);
  await stores.stop();
};
stopOnSignal(stop);

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await r.json()) as any;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

try {
  const org = await call(platformKey, 'POST', '/api/v2/organizations', { externalId: 'wl-bench', name: 'wl-bench' });
  const key = (
    await call(platformKey, 'POST', '/api/v2/api-keys', {
      type: 'organization_test',
      organizationId: org.id,
      name: 'b',
    })
  ).key as string;
  const provider = await call(
    platformKey,
    'POST',
    '/api/v2/providers',
    { externalId: 'p1', displayName: 'Dr. P' },
    { 'service-organization-id': org.id },
  );
  const svc = await call(key, 'POST', '/api/v2/services', { providerId: provider.id, title: 'Intake', duration: 30 });
  const day = { enabled: true, slots: [{ start: '08:00', end: '20:00' }] };
  const days = Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
  );
  await call(key, 'POST', '/api/v2/calendar-connections', { providerId: provider.id, timezone: 'UTC', days });
  const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 8 * 86_400_000).toISOString().slice(0, 10);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const idem = { 'idempotency-key': randomUUID() };
    const r = await call(
      key,
      'POST',
      '/api/v2/resolutions',
      { serviceId: svc.id, dateRange: { from, to }, maxOptionsPerProvider: 1 },
      idem,
    );
    const b = await call(
      key,
      'POST',
      `/api/v2/resolutions/${r.resolutionId}/confirm`,
      {
        optionId: r.options[0].optionId,
        customer: { name: 'Pat', email: 'pat@example.com' },
      },
      { 'idempotency-key': randomUUID() },
    );
    const entry = await call(key, 'POST', '/api/v2/waitlist', {
      serviceId: svc.id,
      customer: { name: `C${i}`, email: `c${i}@example.com` },
    });
    const t0 = performance.now();
    await call(key, 'POST', `/api/v1/bookings/${b.id}/cancel`, {});
    for (;;) {
      const e = await db.query(
        `SELECT 1 FROM events WHERE organization_id = $1 AND type = 'waitlist.offered' AND data->>'entryId' = $2`,
        [org.id, entry.id],
      );
      if (e.rowCount) break;
      if (performance.now() - t0 > 10_000) throw new Error(`no offer for ${entry.id}`);
      await new Promise((res) => setTimeout(res, 2));
    }
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!.toFixed(0);
  console.log(
    `cancel -> waitlist.offered committed, ${rounds} rounds: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`,
  );
} finally {
  await stop();
}
