import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './bench-client.js';
import { forEachBounded, runClosedLoop, throughputOf } from './closed-loop.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';
import { typicalResolutionBody } from './resolution-requests.js';
import type { SeededRandom } from './seeded-random.js';

/** What the hold + confirm scenario measured. */
export interface HoldConfirmResult {
  /** Resolutions made for the pool, and how many gave an option no other round trip comes near. */
  attempted: number;
  prepared: number;
  prepareMs: number;
  /** One client, back to back. */
  singleClient: LatencyStats;
  roundTrip: LatencyStats;
  hold: LatencyStats;
  confirm: LatencyStats;
  roundTripsPerSecond: number;
  failures: number;
  failureCodes: Record<string, number>;
  poolExhausted: boolean;
}

const GAP_MS = 2 * 3600 * 1000;
const CUSTOMER = { name: 'Round Trip', email: 'round-trip@example.org', timezone: 'America/Chicago' };

/**
 * Pre-creates up to `poolSize` resolutions (for at most `prepareMaxMs`; short windows spread over the fortnight, one option per provider) and keeps one
 * option of each whose slot no other round trip comes near; then, from one client and then from `concurrency`
 * clients, each round trip holds that option and confirms it with the hold.
 */
export async function benchHoldConfirm(o: { api: BenchClient; rnd: SeededRandom; serviceIds: readonly string[]; firstDate: string; usedProviderIds: Set<string>; poolSize: number; prepareMaxMs: number; concurrency: number; durationMs: number; singleClientMs: number }): Promise<HoldConfirmResult> {
  const pool: { resolutionId: string; optionId: string }[] = [];
  // Providers used by other scenarios stay out; a provider may serve several round trips on slots at least
  // two hours apart (wider than any seeded buffer), so no round trip meets another's claim.
  const usedBefore = new Set(o.usedProviderIds);
  const pooledSlots = new Map<string, [number, number][]>();
  const nearPooled = (providerId: string, start: number, end: number) =>
    (pooledSlots.get(providerId) ?? []).some(([a, b]) => start < b + GAP_MS && end > a - GAP_MS);
  const t0 = performance.now();
  let attempted = 0;
  await forEachBounded(Array.from({ length: o.poolSize }, (_, i) => i), o.concurrency, async () => {
    // Bounded: a slow service gets a smaller pool (the timed phase then stops when it is used up).
    if (performance.now() - t0 > o.prepareMaxMs) return;
    attempted++;
    const body = typicalResolutionBody(o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: o.rnd.int(1, 2), spreadDays: 11, maxOptionsPerProvider: 1 });
    const r = await o.api.post('/api/v2/resolutions', body, { 'idempotency-key': randomUUID() });
    if (r.status !== 200) return;
    const option = (r.body.options as any[]).find((x) => !usedBefore.has(x.provider.id) && !nearPooled(x.provider.id, Date.parse(x.slot.start), Date.parse(x.slot.end)));
    if (!option) return;
    o.usedProviderIds.add(option.provider.id);
    const list = pooledSlots.get(option.provider.id) ?? [];
    list.push([Date.parse(option.slot.start), Date.parse(option.slot.end)]);
    pooledSlots.set(option.provider.id, list);
    pool.push({ resolutionId: r.body.resolutionId, optionId: option.optionId });
  });
  const prepareMs = performance.now() - t0;

  const holds: number[] = [];
  const confirms: number[] = [];
  const failureCodes: Record<string, number> = {};
  const fail = (step: string, status: number, body: any) => {
    const code = `${step} ${status} ${body?.error?.code ?? ''}`.trim();
    failureCodes[code] = (failureCodes[code] ?? 0) + 1;
    return 'fail' as const;
  };
  let next = 0;
  let measuring = false;
  const roundTrip = async (): Promise<number | 'fail' | 'stop'> => {
    const item = pool[next++];
    if (!item) return 'stop';
    const start = performance.now();
    const h = await o.api.post(`/api/v2/resolutions/${item.resolutionId}/options/${item.optionId}/hold`, { ttlSeconds: 120 });
    if (h.status !== 200) return fail('hold', h.status, h.body);
    const c = await o.api.post(`/api/v2/resolutions/${item.resolutionId}/confirm`, { optionId: item.optionId, holdId: h.body.holdId, customer: CUSTOMER }, { 'idempotency-key': randomUUID() });
    if (c.status !== 200) return fail('confirm', c.status, c.body);
    if (measuring) {
      holds.push(h.ms);
      confirms.push(c.ms);
    }
    return performance.now() - start;
  };
  const single = await runClosedLoop({ concurrency: 1, durationMs: o.singleClientMs, task: roundTrip });
  measuring = true;
  const r = await runClosedLoop({ concurrency: o.concurrency, durationMs: o.durationMs, task: roundTrip });
  return {
    attempted,
    prepared: pool.length,
    prepareMs,
    singleClient: latencyStats(single.latencies),
    roundTrip: latencyStats(r.latencies),
    hold: latencyStats(holds),
    confirm: latencyStats(confirms),
    roundTripsPerSecond: throughputOf(r),
    failures: r.failures,
    failureCodes,
    poolExhausted: next > pool.length,
  };
}
