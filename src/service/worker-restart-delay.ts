/** First wait before a dead worker is forked again; doubled for each death in a row. */
export const WORKER_RESTART_FIRST_DELAY_MS = 500;
/** The longest wait between two forks of one worker slot. */
export const WORKER_RESTART_MAX_DELAY_MS = 30_000;
/** A worker that served this long before dying starts its slot's back-off over. */
export const WORKER_STABLE_MS = 10_000;

/**
 * How long to wait before forking a worker again after `deathsInARow` deaths of its slot (1 for the first): 0.5 s,
 * 1 s, 2 s, ... up to 30 s, so a worker that dies at start is not forked in a tight loop.
 */
export function workerRestartDelayMs(deathsInARow: number): number {
  const n = Math.max(1, Math.floor(deathsInARow));
  return Math.min(WORKER_RESTART_MAX_DELAY_MS, WORKER_RESTART_FIRST_DELAY_MS * 2 ** Math.min(n - 1, 16));
}
