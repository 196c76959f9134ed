import type { BenchClient } from './bench-client.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';

/** Loads one GET path (`/healthz`) from `concurrency` clients; a success is a 200. */
export async function benchGet(
  o: { id: string; label: string; api: BenchClient; path: string; concurrency: number; durationMs: number },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  return measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      task: async () => {
        const r = await o.api.get(o.path);
        return r.status === 200 ? r.ms : 'fail';
      },
    },
    ctx,
  );
}
