import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './bench-client.js';
import { forEachBounded } from './closed-loop.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { addDays, nthWeekday } from './bench-dates.js';

/** What the contention scenario measured. */
export interface ContentionResult {
  resolutions: number;
  /** How many of them offered the same provider and slot as their first option (all must). */
  sameSlot: number;
  slot: string;
  confirms: number;
  wins: number;
  conflicts: number;
  conflictCodes: Record<string, number>;
  others: Record<string, number>;
  conflictLatency: LatencyStats;
  winLatency: number;
  wallMs: number;
  /** Confirmed bookings of that provider at that slot, read back through the API. */
  bookingsAtSlot: number;
}

/**
 * 200 resolutions of the lone provider for one day (all offering its same first slot), then all of
 * their confirms fired at once: exactly one must win; the rest must be 409.
 */
export async function benchContention(o: { api: BenchClient; providerId: string; serviceId: string; firstDate: string; count: number }): Promise<ContentionResult> {
  const date = nthWeekday(o.firstDate, 2);
  const body = { serviceId: o.serviceId, constraints: { serviceRegionCodes: { anyOf: ['US-AK'] } }, dateRange: { from: date, to: addDays(date, 1) }, maxOptionsPerProvider: 1 };
  const made: { resolutionId: string; optionId: string; key: string }[] = [];
  await forEachBounded(Array.from({ length: o.count }, (_, i) => i), 8, async () => {
    const r = await o.api.post('/api/v2/resolutions', body, { 'idempotency-key': randomUUID() });
    if (r.status !== 200 || !r.body.options?.[0]) throw new Error(`contention resolution: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    const opt = r.body.options[0];
    made.push({ resolutionId: r.body.resolutionId, optionId: opt.optionId, key: `${opt.provider.id}@${opt.slot.start}` });
  });
  const first = made[0]!.key;
  const sameSlot = made.filter((m) => m.key === first).length;
  const customer = { name: 'Contender', email: 'contender@example.org' };
  const results: { status: number; code: string; ms: number }[] = [];
  const t0 = performance.now();
  await Promise.all(made.map(async (m) => {
    const res = await o.api.post(`/api/v2/resolutions/${m.resolutionId}/confirm`, { optionId: m.optionId, customer }, { 'idempotency-key': randomUUID() });
    results.push({ status: res.status, code: res.body?.error?.code ?? '', ms: res.ms });
  }));
  const wallMs = performance.now() - t0;
  const conflictCodes: Record<string, number> = {};
  const others: Record<string, number> = {};
  for (const r of results) {
    if (r.status === 409) conflictCodes[r.code] = (conflictCodes[r.code] ?? 0) + 1;
    else if (r.status !== 200) others[`${r.status} ${r.code}`] = (others[`${r.status} ${r.code}`] ?? 0) + 1;
  }
  const slotStart = first.split('@')[1]!;
  const list = await o.api.get(`/api/v2/bookings?providerId=${encodeURIComponent(o.providerId)}&limit=500`);
  const bookingsAtSlot = ((list.body?.data ?? []) as any[]).filter((b) => b.slot?.start === slotStart && (b.status === 'confirmed' || b.status === 'pending')).length;
  return {
    resolutions: made.length, sameSlot, slot: first, confirms: results.length,
    wins: results.filter((r) => r.status === 200).length,
    conflicts: results.filter((r) => r.status === 409).length,
    conflictCodes, others,
    conflictLatency: latencyStats(results.filter((r) => r.status === 409).map((r) => r.ms)),
    winLatency: results.find((r) => r.status === 200)?.ms ?? Number.NaN,
    wallMs, bookingsAtSlot,
  };
}
