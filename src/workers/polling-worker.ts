import type { Worker } from './worker.js';

/** A polling worker that can also be woken between polls. */
export interface WakeableWorker extends Worker {
  /** Runs the steps now (or, when a step is running, once more right after): new work was announced. */
  wake(): void;
}

/**
 * A worker that calls `step` every `pollMs` and, while `step` reports more work, again at once. One step
 * runs at a time per process; a failing step (a store outage) is retried on the next tick. `wake` runs the steps
 * before the next tick; a wake during a step is kept, so work announced while a step ran is not left to the poll.
 * `stop` waits for the step in progress.
 */
export function createPollingWorker(opts: {
  pollMs: number;
  step: () => Promise<boolean>;
  onStop?: () => void;
}): WakeableWorker {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let busy = false;
  let woken = false;
  // `current` is the loop in progress (the one `stop` waits for); a tick or wake while it runs leaves it alone.
  const tick = () => {
    if (busy || !running) return;
    busy = true;
    current = (async () => {
      try {
        do {
          woken = false;
          while (running && (await opts.step()));
        } while (running && woken);
      } catch {
        // Store outage: try again on the next tick.
      } finally {
        busy = false;
      }
    })();
  };
  return {
    wake() {
      if (!running) return;
      if (busy) woken = true;
      else tick();
    },
    start() {
      running = true;
      timer = setInterval(tick, opts.pollMs);
      timer.unref();
      tick();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await current;
      opts.onStop?.();
    },
  };
}
