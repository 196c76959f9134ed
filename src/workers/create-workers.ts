import type { AppDeps } from '../application/app-deps.js';

/** A background worker loop. */
export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

/** Builds the background workers of this process. */
export function createWorkers(deps: AppDeps, opts: { log: (msg: string, extra?: Record<string, unknown>) => void }): Worker {
  const workers: Worker[] = [];
  void deps;
  void opts;
  return {
    start: () => workers.forEach((w) => w.start()),
    stop: async () => { await Promise.all(workers.map((w) => w.stop())); },
  };
}
