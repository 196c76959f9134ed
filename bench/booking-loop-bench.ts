import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './bench-client.js';
import { latencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { resolutionBody, type ConstraintMix } from './resolution-requests.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';

const GAP_MS = 2 * 3600 * 1000;
const CUSTOMER = { name: 'Round Trip', email: 'round-trip@example.org', timezone: 'America/Chicago' };

/**
 * The whole booking path from `concurrency` clients: each round trip resolves (bodies of `mix`), holds an option
 * and confirms it with the hold. A round trip takes the first option whose slot no other round trip took or
 * comes within two hours of (wider than any seeded buffer), and no provider in `usedProviderIds`, so the loops
 * never fight for a slot: every 409 here would be a fault. Notes hold, confirm and hold+confirm latency.
 */
export async function benchBookingLoop(
  o: {
    id: string;
    label: string;
    api: BenchClient;
    mix: ConstraintMix;
    rnd: SeededRandom;
    serviceIds: readonly string[];
    firstDate: string;
    usedProviderIds: Set<string>;
    concurrency: number;
    durationMs: number;
  },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const taken = new Map<string, [number, number][]>();
  const near = (providerId: string, start: number, end: number) =>
    (taken.get(providerId) ?? []).some(([a, b]) => start < b + GAP_MS && end > a - GAP_MS);
  const resolves: number[] = [];
  const holds: number[] = [];
  const confirms: number[] = [];
  const holdConfirms: number[] = [];
  let noFreeOption = 0;
  const failureCodes: Record<string, number> = {};
  const fail = (step: string, status: number, body: any) => {
    const code = `${step} ${status} ${body?.error?.code ?? ''}`.trim();
    failureCodes[code] = (failureCodes[code] ?? 0) + 1;
    return 'fail' as const;
  };
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      task: async (_client, phase) => {
        const start = performance.now();
        const r = await o.api.post(
          '/api/v2/resolutions',
          resolutionBody(o.mix, o.rnd, { serviceIds: o.serviceIds, from: o.firstDate, days: 14 }),
          { 'idempotency-key': randomUUID() },
        );
        if (r.status !== 200) return fail('resolve', r.status, r.body);
        const option = ((r.body.options ?? []) as any[]).find(
          (x) =>
            !o.usedProviderIds.has(x.provider.id) &&
            !near(x.provider.id, Date.parse(x.slot.start), Date.parse(x.slot.end)),
        );
        if (!option) {
          noFreeOption++;
          return 'fail';
        }
        // Taken before the hold is sent: no other round trip can pick this slot from now on.
        const list = taken.get(option.provider.id) ?? [];
        list.push([Date.parse(option.slot.start), Date.parse(option.slot.end)]);
        taken.set(option.provider.id, list);
        const h = await o.api.post(`/api/v2/resolutions/${r.body.resolutionId}/options/${option.optionId}/hold`, {
          ttlSeconds: 120,
        });
        if (h.status !== 200) return fail('hold', h.status, h.body);
        const c = await o.api.post(
          `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
          { optionId: option.optionId, holdId: h.body.holdId, customer: CUSTOMER },
          { 'idempotency-key': randomUUID() },
        );
        if (c.status !== 200) return fail('confirm', c.status, c.body);
        if (phase === 'measure') {
          resolves.push(r.ms);
          holds.push(h.ms);
          confirms.push(c.ms);
          holdConfirms.push(h.ms + c.ms);
        }
        return performance.now() - start;
      },
    },
    ctx,
  );
  for (const providerId of taken.keys()) o.usedProviderIds.add(providerId);
  const hc = latencyStats(holdConfirms);
  const rs = latencyStats(resolves);
  const hs = latencyStats(holds);
  const cs = latencyStats(confirms);
  m.notes = {
    holdConfirmP50: hc.p50,
    holdConfirmP99: hc.p99,
    resolveP50: rs.p50,
    resolveP99: rs.p99,
    holdP50: hs.p50,
    holdP99: hs.p99,
    confirmP50: cs.p50,
    confirmP99: cs.p99,
    noFreeOption,
    failureCodes: JSON.stringify(failureCodes),
  };
  return m;
}
