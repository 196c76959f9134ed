import { performance } from 'node:perf_hooks';

/** Seconds a shed request or call is told to wait (Retry-After): the shortest an HTTP client can be asked for. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * Metadata key of the token a gateway sends on the calls it makes to the gRPC server of its own process: that server
 * does not count them again (see src/grpc/admit-calls.ts).
 */
export const ADMITTED_TOKEN_KEY = 'x-service-admitted';

/** How long work in flight may stay at or above the limit before the process counts as saturated. */
const SATURATION_WINDOW_MS = 100;
/**
 * How long work in flight must stay below the limit before a saturated process admits bursts again: longer than a
 * shed client's Retry-After, so the clients it sent away, coming back together, do not arrive as a burst let in whole.
 */
const DRAIN_WINDOW_MS = 1000;

/** How much work one door of a process admits at once (README "Admission and overload"), in units (admission-cost.ts). */
export interface AdmissionLimits {
  /** Work in flight kept to under sustained load; 0: no limit at all. */
  limit: number;
  /**
   * Hard bound on work in flight while the process is not saturated, so a burst arriving at an idle process is
   * admitted whole; at or below `limit`: no burst, `limit` is a plain bound.
   */
  burst: number;
  /** Milliseconds, monotonic (default performance.now); tests pass their own. */
  now?: () => number;
}

/** The work one door of a process has admitted and not yet answered, in units. */
export interface AdmissionGate {
  /** Counts `cost` units of work in and answers true, or answers false when the work must be shed. */
  tryEnter(cost?: number): boolean;
  /** Counts `cost` units of admitted work out. */
  leave(cost?: number): void;
  readonly inFlight: number;
}

/**
 * createAdmissionGate bounds the work in flight at one door. Work that fits under `limit` is admitted. Beyond it, work
 * is still admitted up to `burst` unless the process is saturated: in flight has stayed at or above `limit` for a
 * whole window (100 ms), a standing backlog rather than a burst that drains. A saturated gate admits only what fits
 * under `limit`, and stays saturated until in flight has stayed below the limit for a second: a backlog that refills
 * at every completion, or clients shed a moment ago, never get a burst in. Work costing more than the whole limit is
 * admitted when nothing else is in flight.
 */
export function createAdmissionGate(l: AdmissionLimits): AdmissionGate {
  const now = l.now ?? (() => performance.now());
  const hard = Math.max(l.limit, l.burst);
  let inFlight = 0;
  // Whether in flight is at or above the limit, and since when it has been on that side of it.
  let atLimit = false;
  let since = 0;
  let saturated = false;
  const counted = (delta: number) => {
    inFlight += delta;
    if (l.limit <= 0 || inFlight >= l.limit === atLimit) return;
    atLimit = !atLimit;
    since = now();
  };
  return {
    get inFlight() {
      return inFlight;
    },
    tryEnter(cost = 1) {
      if (l.limit <= 0) {
        inFlight += cost;
        return true;
      }
      // Either side of the limit held long enough decides: at or above it, saturated; below it, drained.
      const held = now() - since;
      if (atLimit && held >= SATURATION_WINDOW_MS) saturated = true;
      else if (!atLimit && held >= DRAIN_WINDOW_MS) saturated = false;
      if (inFlight + cost > l.limit && inFlight > 0 && (saturated || inFlight + cost > hard)) return false;
      counted(cost);
      return true;
    },
    leave(cost = 1) {
      counted(-cost);
    },
  };
}
