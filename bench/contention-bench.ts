import { randomUUID } from 'node:crypto';
import type { BenchClient } from './bench-client.js';
import { forEachBounded } from './closed-loop.js';
import { latencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { addDays, nthWeekday } from './bench-dates.js';

/**
 * `count` resolutions of the lone provider for one day (all offering its same first slot), then all of their
 * confirms fired at once (`count` clients, one confirm each): exactly one must win, the rest must be 409, and
 * exactly one booking must exist at that slot afterwards (read back through the API). Each contender has its own
 * keep-alive connection, opened before the confirms.
 */
export async function benchContention(
  o: {
    id: string;
    label: string;
    api: BenchClient;
    providerId: string;
    serviceId: string;
    firstDate: string;
    count: number;
  },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const date = nthWeekday(o.firstDate, 2);
  const body = {
    serviceId: o.serviceId,
    constraints: { serviceRegionCodes: { anyOf: ['US-AK'] } },
    dateRange: { from: date, to: addDays(date, 1) },
    maxOptionsPerProvider: 1,
  };
  const made: { resolutionId: string; optionId: string; key: string }[] = [];
  await forEachBounded(
    Array.from({ length: o.count }, (_, i) => i),
    8,
    async () => {
      const r = await o.api.post('/api/v2/resolutions', body, { 'idempotency-key': randomUUID() });
      if (r.status !== 200 || !r.body.options?.[0])
        throw new Error(`contention resolution: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      const opt = r.body.options[0];
      made.push({
        resolutionId: r.body.resolutionId,
        optionId: opt.optionId,
        key: `${opt.provider.id}@${opt.slot.start}`,
      });
    },
  );
  const first = made[0]!.key;
  // One keep-alive connection per contender beforehand, so the timed confirms measure the service, not TCP set-up.
  await Promise.all(made.map(() => o.api.get('/healthz')));
  const customer = { name: 'Contender', email: 'contender@example.org' };
  const results: { status: number; ms: number }[] = [];
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: made.length,
      durationMs: 600_000,
      warmupMs: 0,
      perClientLimit: 1,
      task: async (client) => {
        const item = made[client]!;
        const res = await o.api.post(
          `/api/v2/resolutions/${item.resolutionId}/confirm`,
          { optionId: item.optionId, customer },
          { 'idempotency-key': randomUUID() },
        );
        results.push({ status: res.status, ms: res.ms });
        return res.status === 200 || res.status === 409 ? res.ms : 'fail';
      },
    },
    ctx,
  );
  const slotStart = first.split('@')[1]!;
  const list = await o.api.get(`/api/v2/bookings?providerId=${encodeURIComponent(o.providerId)}&limit=500`);
  const bookingsAtSlot = ((list.body?.data ?? []) as any[]).filter(
    (b) => b.slot?.start === slotStart && (b.status === 'confirmed' || b.status === 'pending'),
  ).length;
  const conflicts = latencyStats(results.filter((r) => r.status === 409).map((r) => r.ms));
  m.notes = {
    slot: first,
    sameSlot: made.filter((x) => x.key === first).length,
    resolutions: made.length,
    wins: results.filter((r) => r.status === 200).length,
    conflicts: conflicts.count,
    conflictP50: conflicts.p50,
    conflictP99: conflicts.p99,
    winnerMs: results.find((r) => r.status === 200)?.ms ?? Number.NaN,
    bookingsAtSlot,
  };
  return m;
}
