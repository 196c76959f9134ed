import { AsyncLocalStorage } from 'node:async_hooks';
import { ServiceError } from '../errors/service-error.js';

/** What the store clients know of the call they work for: when its caller stops waiting, and whether it went away. */
export interface CallScope {
  /** Epoch milliseconds after which nobody waits for the answer (Infinity: no deadline). */
  deadline: number;
  /** Aborted when the call is cancelled (caller gone, deadline passed at the transport). */
  signal: AbortSignal;
}

const storage = new AsyncLocalStorage<CallScope>();

/** Runs `fn` (and everything it awaits) as work of the call described by `scope`. */
export function runInCallScope<T>(scope: CallScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/**
 * Runs `fn` (and everything it awaits) as work of no call: background work a call starts but does not wait for (its
 * statements are then not bounded by the call's deadline, nor rolled back when the call ends).
 */
export function runOutsideCallScope<T>(fn: () => Promise<T>): Promise<T> {
  return storage.exit(fn);
}

/** The scope of the call the current code works for; undefined outside calls (workers, start-up, tools). */
export function currentCallScope(): CallScope | undefined {
  return storage.getStore();
}

/** The 503 of work refused because its call is cancelled or (about to be) out of time. */
export function callOutOfTime(): ServiceError {
  return new ServiceError(
    'SERVICE_UNAVAILABLE',
    'The request ran out of time before it could be carried out; nothing was changed.',
    { retryAfter: 1 },
  );
}

/** Throws 503 SERVICE_UNAVAILABLE when the call was cancelled or its deadline passed: its work must not go on. */
export function assertCallLive(scope: CallScope | undefined): void {
  if (scope !== undefined && (scope.signal.aborted || Date.now() >= scope.deadline)) throw callOutOfTime();
}
