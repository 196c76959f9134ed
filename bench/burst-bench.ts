import type { BenchClient } from './bench-client.js';
import { latencyStats } from './latency-stats.js';
import { measureScenario, type MeasureContext, type ScenarioMeasurement } from './measure-scenario.js';
import { httpResolutionCaller } from './resolution-load.js';

/**
 * A burst on an idle service: `count` resolutions sent at the same moment (one per client, each on a keep-alive
 * connection opened beforehand), after `quietMs` in which nothing was sent, as when a platform's batch job or a
 * clinic's morning rush starts. Every one must be answered 200: a burst on an idle service waits its turn in the
 * admission queue, it is not refused. Notes how many were refused (503) and the time until the last answer.
 */
export async function benchBurst(
  o: {
    id: string;
    label: string;
    api: BenchClient;
    body: () => Record<string, unknown>;
    count: number;
    quietMs: number;
  },
  ctx: MeasureContext,
): Promise<ScenarioMeasurement> {
  const call = httpResolutionCaller(o.api);
  const bodies = Array.from({ length: o.count }, () => o.body());
  // One keep-alive connection per client beforehand (a cheap, never-queued call), so the burst measures the service.
  await Promise.all(bodies.map(() => o.api.get('/healthz')));
  await new Promise((r) => setTimeout(r, o.quietMs));
  const answers: { status: number; ms: number }[] = [];
  const m = await measureScenario(
    {
      id: o.id,
      label: o.label,
      concurrency: o.count,
      durationMs: 600_000,
      warmupMs: 0,
      perClientLimit: 1,
      task: async (client) => {
        const res = await call(bodies[client]!);
        answers.push({ status: res.status, ms: res.ms });
        return res.status === 200 ? res.ms : 'fail';
      },
    },
    ctx,
  );
  const refused = latencyStats(answers.filter((a) => a.status === 503).map((a) => a.ms));
  m.notes = {
    refused: refused.count,
    refusedP99: refused.p99,
    lastAnswerMs: Math.max(...answers.map((a) => a.ms)),
  };
  return m;
}
