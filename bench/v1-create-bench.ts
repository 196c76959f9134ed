import { performance } from 'node:perf_hooks';
import type { BenchClient, BenchResponse } from './bench-client.js';
import { latencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { nthWeekday } from './bench-dates.js';
import type { BenchProvider } from './seed-organization.js';
import type { TaskOutcome } from './closed-loop.js';

/** What the v1 create scenario measured, or why it was skipped. */
export type V1CreateResult = { skipped: true; reason: string } | { skipped: false; measurement: ScenarioMeasurement };

/** True when the gateway has no such route or the operation is not implemented yet. */
function missingRoute(r: BenchResponse): boolean {
  const code = r.body?.error?.code;
  return (r.status === 404 && code === 'ROUTE_NOT_FOUND') || r.status === 501 || code === 'UNIMPLEMENTED';
}

/**
 * v1 direct booking from `concurrency` clients: GET /api/v1/slots for one weekday of a provider nobody else
 * books here, then POST /api/v1/bookings for its first available slot; a pair is one booking created.
 */
export async function benchV1Create(
  o: {
    id: string;
    label: string;
    api: BenchClient;
    providers: readonly BenchProvider[];
    usedProviderIds: Set<string>;
    firstDate: string;
    concurrency: number;
    durationMs: number;
  },
  ctx: MeasureContext,
): Promise<V1CreateResult> {
  const free = o.providers.filter((p) => !o.usedProviderIds.has(p.providerId));
  let next = 0;
  const slotsMs: number[] = [];
  const createMs: number[] = [];
  const failureCodes: Record<string, number> = {};
  let noFreeSlot = 0;
  let skipReason: string | undefined;
  const fail = (step: string, r: BenchResponse): TaskOutcome => {
    if (missingRoute(r)) skipReason = `${step} answered ${r.status} ${r.body?.error?.code ?? ''}`.trim();
    const code = `${step} ${r.status} ${r.body?.error?.code ?? ''}`.trim();
    failureCodes[code] = (failureCodes[code] ?? 0) + 1;
    return skipReason ? 'stop' : 'fail';
  };
  const once = async (measure: boolean): Promise<TaskOutcome> => {
    const k = next++;
    const p = free[k];
    if (!p) return 'stop';
    o.usedProviderIds.add(p.providerId);
    const date = nthWeekday(o.firstDate, 1 + (k % 7));
    const start = performance.now();
    const s = await o.api.get(
      `/api/v1/slots?providerId=${encodeURIComponent(p.providerId)}&eventTypeId=${encodeURIComponent(p.serviceId)}&date=${date}`,
    );
    if (s.status !== 200) return fail('slots', s);
    const slot = (s.body.slots as { id: string; available: boolean }[]).find((x) => x.available);
    if (!slot) {
      noFreeSlot++;
      return 'fail';
    }
    const c = await o.api.post('/api/v1/bookings', {
      providerId: p.providerId,
      serviceId: p.serviceId,
      slotId: slot.id,
      attendee: { name: 'V1 Attendee', email: 'v1-attendee@example.org', timezone: p.timezone },
    });
    if (c.status !== 200 && c.status !== 201) return fail('create', c);
    if (measure) {
      slotsMs.push(s.ms);
      createMs.push(c.ms);
    }
    return performance.now() - start;
  };
  // One probe first: the v1 path may not be there yet.
  const probe = await once(false);
  if (skipReason) return { skipped: true, reason: skipReason };
  if (probe === 'fail') return { skipped: true, reason: `the probe booking failed: ${JSON.stringify(failureCodes)}` };
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      task: (_c, phase) => once(phase === 'measure'),
    },
    ctx,
  );
  if (skipReason) return { skipped: true, reason: skipReason };
  const sl = latencyStats(slotsMs);
  const cr = latencyStats(createMs);
  m.notes = {
    slotsP50: sl.p50,
    slotsP99: sl.p99,
    createP50: cr.p50,
    createP99: cr.p99,
    noFreeSlot,
    failureCodes: JSON.stringify(failureCodes),
  };
  return { skipped: false, measurement: m };
}
