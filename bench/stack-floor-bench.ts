import type { BenchClient } from './bench-client.js';
import { measureClosedLoop, type ThroughputResult } from './closed-loop.js';

/** Throughput and latency of one cheap request repeated from `concurrency` clients. */
export interface StackFloorResult extends ThroughputResult {
  path: string;
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
  return { path: o.path, ...(await measureClosedLoop({ concurrency: o.concurrency, durationMs: o.durationMs, task })) };
}
