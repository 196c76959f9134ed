import { runClosedLoop } from './closed-loop.js';
import type { BenchClient } from './bench-client.js';
import { latencyStats, type LatencyStats } from './latency-stats.js';

/** Throughput and latency of one cheap request repeated from `concurrency` clients. */
export interface StackFloorResult {
  path: string;
  requestsPerSecond: number;
  latency: LatencyStats;
  failures: number;
}

/**
 * Measures the floor of the service's stack: a cheap authenticated GET (gateway, gRPC, key lookup, rate limit and
 * one read) repeated back to back. No resolution can be cheaper than this, so it bounds what the timed
 * scenarios can reach on the machine.
 */
export async function benchStackFloor(o: { api: BenchClient; path: string; concurrency: number; durationMs: number }): Promise<StackFloorResult> {
  const task = async () => {
    const r = await o.api.get(o.path);
    return r.status === 200 ? r.ms : 'fail' as const;
  };
  await runClosedLoop({ concurrency: o.concurrency, durationMs: 500, task });
  const r = await runClosedLoop({ concurrency: o.concurrency, durationMs: o.durationMs, task });
  return { path: o.path, requestsPerSecond: r.latencies.length / (r.elapsedMs / 1000), latency: latencyStats(r.latencies), failures: r.failures };
}
