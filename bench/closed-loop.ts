import { performance } from 'node:perf_hooks';
import { latencyStats, type LatencyStats } from './latency-stats.js';

/** What a closed-loop run measured. */
export interface ClosedLoopResult {
  /** Latency (ms) of each completed task that counted as a success. */
  latencies: number[];
  failures: number;
  elapsedMs: number;
}

/**
 * Runs `task` from `concurrency` clients back to back until `durationMs` passes (or a task answers `stop`):
 * each client starts its next request only when the previous one answered (a closed loop).
 * A task returns its latency in ms (success), `'fail'`, or `'stop'` when it has no more work.
 */
export async function runClosedLoop(opts: { concurrency: number; durationMs: number; task: (client: number) => Promise<number | 'fail' | 'stop'> }): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  let failures = 0;
  let stopped = false;
  const start = performance.now();
  const end = start + opts.durationMs;
  const client = async (i: number) => {
    while (!stopped && performance.now() < end) {
      const r = await opts.task(i);
      if (r === 'stop') { stopped = true; break; }
      if (r === 'fail') failures++;
      else latencies.push(r);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => client(i)));
  return { latencies, failures, elapsedMs: performance.now() - start };
}

/** Completed (successful) tasks per second of a run. */
export function throughputOf(r: ClosedLoopResult): number {
  return r.latencies.length / (r.elapsedMs / 1000);
}

/** What a warmed-up closed-loop measurement of one request kind gives. */
export interface ThroughputResult {
  requestsPerSecond: number;
  latency: LatencyStats;
  failures: number;
}

/** Warms connections and the JIT for `warmupMs` (default 500), then runs the closed loop and summarizes it. */
export async function measureClosedLoop(opts: { concurrency: number; durationMs: number; warmupMs?: number; task: (client: number) => Promise<number | 'fail' | 'stop'> }): Promise<ThroughputResult> {
  await runClosedLoop({ concurrency: opts.concurrency, durationMs: opts.warmupMs ?? 500, task: opts.task });
  const r = await runClosedLoop({ concurrency: opts.concurrency, durationMs: opts.durationMs, task: opts.task });
  return { requestsPerSecond: throughputOf(r), latency: latencyStats(r.latencies), failures: r.failures };
}

/** Runs `fn` over `items` with at most `concurrency` in flight; resolves when all are done. */
export async function forEachBounded<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
