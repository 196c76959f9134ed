import type { BenchClient } from './bench-client.js';
import { forEachBounded } from './closed-loop.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import type { ResolutionCaller } from './resolution-load.js';

/**
 * GET /api/v2/resolutions/:id from `concurrency` clients over `bodies.length` resolutions created beforehand (in
 * turn, so reads spread over many records as a platform's clients would read theirs back).
 */
export async function benchResolutionReads(
  o: {
    id: string;
    label: string;
    api: BenchClient;
    create: ResolutionCaller;
    bodies: Record<string, unknown>[];
    concurrency: number;
    durationMs: number;
  },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const ids: string[] = [];
  await forEachBounded(o.bodies, 8, async (body) => {
    const r = await o.create(body);
    if (r.status === 200) ids.push(r.body.resolutionId);
  });
  if (ids.length === 0) throw new Error('resolution reads: no resolution could be created to read back');
  let next = 0;
  return measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      task: async () => {
        const r = await o.api.get(`/api/v2/resolutions/${ids[next++ % ids.length]}`);
        return r.status === 200 ? r.ms : 'fail';
      },
    },
    ctx,
  );
}
