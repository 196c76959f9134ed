import type { AppDeps } from '../application/app-deps.js';
import { createImportWorker } from './import-worker.js';

/** A background worker loop. */
export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

/** Builds the background workers of this process (import jobs; timers and dispatchers join in later issues). */
export function createWorkers(deps: AppDeps, opts: { log: (msg: string, extra?: Record<string, unknown>) => void }): Worker {
  const workers: Worker[] = [createImportWorker({ db: deps.db, clock: deps.clock, log: opts.log })];
  return {
    start: () => workers.forEach((w) => w.start()),
    stop: async () => { await Promise.all(workers.map((w) => w.stop())); },
  };
}
