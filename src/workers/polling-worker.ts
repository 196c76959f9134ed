import type { Worker } from './worker.js';

/**
 * A worker that calls `step` every `pollMs` and, while `step` reports more work, again at once. One step
 * runs at a time per process; a failing step (a store outage) is retried on the next tick. `stop` waits for
 * the step in progress.
 */
export function createPollingWorker(opts: {
  pollMs: number;
  step: () => Promise<boolean>;
  onStop?: () => void;
}): Worker {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = async () => {
    if (busy || !running) return;
    busy = true;
    try {
      while (running && (await opts.step()));
    } catch {
      // Store outage: try again on the next tick.
    } finally {
      busy = false;
    }
  };
  return {
    start() {
      running = true;
      timer = setInterval(() => {
        current = tick();
      }, opts.pollMs);
      timer.unref();
      current = tick();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await current;
      opts.onStop?.();
    },
  };
}
