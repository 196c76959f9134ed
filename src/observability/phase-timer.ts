import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';

/**
 * Times consecutive phases of one piece of work into a histogram labelled by phase: each `mark(name)` records the
 * time since the previous mark (or since creation) under `name`.
 */
export function phaseTimer(histogram: Histogram<'phase'>): (name: string) => void {
  let last = performance.now();
  return (name) => {
    const now = performance.now();
    histogram.observe({ phase: name }, (now - last) / 1000);
    last = now;
  };
}
