import { performance } from 'node:perf_hooks';

/** What one task of a closed loop reports: its latency in ms (a success), a failure, or that no work is left. */
export type TaskOutcome = number | 'fail' | 'stop';

/** What a closed-loop run measured. */
export interface ClosedLoopResult {
  /** Latency (ms) of each completed task that counted as a success. */
  latencies: number[];
  failures: number;
  elapsedMs: number;
}

/**
 * Runs `task` from `concurrency` clients back to back until `durationMs` passes, a task answers `stop`, or each
 * client ran `perClientLimit` tasks: each client starts its next task only when its previous one answered.
 */
export async function runClosedLoop(opts: {
  concurrency: number;
  durationMs: number;
  perClientLimit?: number;
  task: (client: number) => Promise<TaskOutcome>;
}): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  let failures = 0;
  let stopped = false;
  const limit = opts.perClientLimit ?? Number.POSITIVE_INFINITY;
  const start = performance.now();
  const end = start + opts.durationMs;
  const client = async (i: number) => {
    for (let n = 0; n < limit && !stopped && performance.now() < end; n++) {
      const r = await opts.task(i);
      if (r === 'stop') {
        stopped = true;
        break;
      }
      if (r === 'fail') failures++;
      else latencies.push(r);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => client(i)));
  return { latencies, failures, elapsedMs: performance.now() - start };
}

/** Runs `fn` over `items` with at most `concurrency` in flight; resolves when all are done. */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
