import { performance } from 'node:perf_hooks';
import { createLearnedCosts, type LearnedCosts } from './learned-costs.js';

/** Seconds a refused request or call is told to wait (Retry-After): the shortest an HTTP client can be asked for. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * Metadata key of the token a gateway sends on the calls it makes to the gRPC server of its own process: that server
 * does not count them again (see src/grpc/admit-calls.ts).
 */
export const ADMITTED_TOKEN_KEY = 'x-service-admitted';

/** The longest a request waits to start by default: the wait budget (README "Admission and overload"). */
export const DEFAULT_MAX_WAIT_MS = 1000;
/** Requests one door holds waiting by default; beyond, refused at once. */
export const DEFAULT_MAX_QUEUE = 1024;

/**
 * How often a door whose work keeps waiting past the target looks at whether its queue drains. A burst at a quiet
 * door drains (its clients send nothing more while it does); a standing load does not.
 */
const OVERLOAD_INTERVAL_MS = 500;
/** A queue still holding this share of what it held an interval ago is standing, not draining. */
const STANDING_SHARE = 0.8;
/**
 * How long an overload lasts after its last sign (work that waited past the target, an arrival that would have): longer
 * than the Retry-After a refusal asks for, so clients sent away that come back together are refused at once rather than
 * queued; the state ends by itself once the load has gone, whether or not anything arrives.
 */
const OVERLOAD_HOLD_MS = 1500;
/**
 * Within this long after an overload's last sign, work that waited past the target makes the door overloaded again at
 * once: clients sent away come back together after their Retry-After, and must not find a plain FIFO queue.
 */
const RECENT_OVERLOAD_MS = 2000;
/** The shortest target wait: below it, timer resolution and one slow turn of the event loop would decide. */
const MIN_TARGET_MS = 5;
/** The target wait is this many times the average service time of one piece of work. */
const TARGET_WORK_FACTOR = 2;

/** Time and timers of a queue; tests pass their own to move time by hand. */
export interface AdmissionTimers {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The node timers on performance.now(). */
const REAL_TIMERS: AdmissionTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Options of createAdmissionQueue. */
export interface AdmissionQueueOptions {
  /** Units of work run at once (a unit is the cheapest kind of work's time; learned-costs.ts); 0: no limit at all. */
  limit: number;
  /** Requests that may wait at once; beyond, refused at once. @default DEFAULT_MAX_QUEUE */
  maxQueue?: number;
  /** The wait budget: the longest a request waits to start. @default DEFAULT_MAX_WAIT_MS */
  maxWaitMs?: number;
  timers?: AdmissionTimers;
}

/** Why work was not admitted. */
export type RefusalReason =
  /** The queue holds as many as it may. */
  | 'queue_full'
  /** It could not start within the wait budget (or its own deadline). */
  | 'wait_budget'
  /** The door is overloaded and the work would wait past the target. */
  | 'overloaded'
  /** The caller went away while it waited. */
  | 'cancelled';

/** Admitted work: call `leave` once when it is done. */
export interface AdmissionTicket {
  /** The units it holds. */
  readonly cost: number;
  /** How long it waited to start, in milliseconds. */
  readonly waitedMs: number;
  /** Gives its units back and records its service time (once; later calls do nothing). */
  leave(): void;
}

/** The outcome of asking to be admitted. */
export type Admission = { admitted: true; ticket: AdmissionTicket } | { admitted: false; reason: RefusalReason };

/** A door's admission: work runs within its limit, the rest waits in a bounded queue. */
export interface AdmissionQueue {
  /**
   * Admits work of `kind` (its cost is learned per kind): at once when it fits, else after waiting its turn, or refuses
   * it. `budgetMs` shortens the wait budget (the caller's remaining deadline); `signal` withdraws a waiting request.
   */
  enter(kind: string, opts?: { budgetMs?: number; signal?: AbortSignal }): Promise<Admission>;
  /** Units of work running now. */
  readonly inFlight: number;
  /** Requests waiting now. */
  readonly waiting: number;
  /** Whether the door is overloaded now (waits are held to the target, the rest refused at once). */
  readonly overloaded: boolean;
  /** The learned costs (read by tests and metrics). */
  readonly costs: LearnedCosts;
}

interface Waiter {
  kind: string;
  cost: number;
  /** Its cost times its kind's average time (learned-costs.ts workOf), counted in the queue's predicted wait. */
  work: number;
  enqueuedAt: number;
  resolve(a: Admission): void;
  timer: unknown;
  onAbort?: () => void;
  signal?: AbortSignal;
}

/**
 * createAdmissionQueue bounds the work one door of a process runs at once and queues the rest, refusing only what
 * could not start in time. Work that fits under `limit` units starts at once. Otherwise it waits in FIFO order, and is
 * refused when the queue is full, when the predicted wait (queued units over the limit, times the learned time of a
 * unit) exceeds its budget, or when its budget passes while it waits. A burst at a quiet door therefore waits its turn
 * within the budget (1 s by default) instead of being refused.
 *
 * Under sustained overload a FIFO queue only turns throughput into latency, so the door adapts (CoDel, as in Nichols
 * and Jacobson's queue management and Facebook's adaptive queueing): when waits have stayed above a target (twice
 * the average service time, at least 5 ms) for half a second and the queue has not drained meanwhile (a burst drains:
 * its clients send nothing more while it does), the door is overloaded: arrivals that would wait past the target are
 * refused at once (a cheap answer), and so are waiters that have already waited past it. Each such sign keeps the
 * overload for another 1.5 s; without one (the load has gone) it ends by itself, so no state outlives the load
 * for long: within 2 s of its last sign, a wait past the target starts it again at once (clients sent away come back
 * together after their Retry-After).
 */
export function createAdmissionQueue(o: AdmissionQueueOptions): AdmissionQueue {
  const t = o.timers ?? REAL_TIMERS;
  const maxQueue = o.maxQueue ?? DEFAULT_MAX_QUEUE;
  const maxWaitMs = o.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  // One piece of heavy work may take a quarter of the limit, so a few run beside a stream of cheap ones.
  const costs = createLearnedCosts({ maxCost: Math.max(1, Math.floor(o.limit / 4)) });
  const queue: Waiter[] = [];
  let head = 0;
  let inFlight = 0;
  let queuedUnits = 0;
  let queuedWork = 0;
  let waiting = 0;
  // CoDel state: since when waits have been above the target and how many waited then, and the overload.
  let aboveSince: number | undefined;
  let waitingAtMark = 0;
  let overloadedUntil = -Infinity;
  const isOverloaded = (now: number) => now < overloadedUntil;
  /** Work waited, or would wait, past the target while overloaded: the overload goes on. */
  const stillOverloaded = (now: number) => {
    overloadedUntil = now + OVERLOAD_HOLD_MS;
  };

  const targetMs = () =>
    Math.min(maxWaitMs, Math.max(MIN_TARGET_MS, TARGET_WORK_FACTOR * (costs.workMs ?? MIN_TARGET_MS)));
  /** How long work arriving now would wait: the capacity queued ahead of it and its own, over the limit. */
  const predictedWaitMs = (work: number) => (queuedWork + work) / Math.max(1, o.limit);

  /** Updates the overload state from the wait of work that starts now. */
  const observeWait = (waitedMs: number, now: number) => {
    const target = targetMs();
    if (isOverloaded(now)) {
      if (waitedMs > target) stillOverloaded(now);
      return;
    }
    if (waitedMs < target) {
      aboveSince = undefined;
      return;
    }
    if (now - (overloadedUntil - OVERLOAD_HOLD_MS) < RECENT_OVERLOAD_MS) {
      stillOverloaded(now);
      return;
    }
    if (aboveSince === undefined) {
      aboveSince = now;
      waitingAtMark = waiting;
      return;
    }
    if (now - aboveSince < OVERLOAD_INTERVAL_MS) return;
    // An interval of long waits: a queue that still holds most of what it held is a standing load (overloaded); one
    // that drained is a burst, watched again over the next interval.
    if (waiting > 0 && waiting >= waitingAtMark * STANDING_SHARE) stillOverloaded(now);
    aboveSince = now;
    waitingAtMark = waiting;
  };

  const start = (kind: string, cost: number, waitedMs: number): AdmissionTicket => {
    inFlight += cost;
    const startedAt = t.now();
    let done = false;
    return {
      cost,
      waitedMs,
      leave() {
        if (done) return;
        done = true;
        inFlight -= cost;
        costs.record(kind, t.now() - startedAt);
        pump();
      },
    };
  };

  const removeAt = (w: Waiter) => {
    queuedUnits -= w.cost;
    queuedWork -= w.work;
    waiting--;
    t.clearTimeout(w.timer);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
  };

  /** Starts waiters in order while they fit; when overloaded, refuses those that waited past the target. */
  function pump() {
    while (head < queue.length) {
      const w = queue[head]!;
      if (w.cost === 0) {
        // A waiter already answered (timed out or cancelled) and left in place.
        head++;
        continue;
      }
      const now = t.now();
      const waited = now - w.enqueuedAt;
      if (isOverloaded(now) && waited > targetMs()) {
        stillOverloaded(now);
        head++;
        removeAt(w);
        w.cost = 0;
        w.resolve({ admitted: false, reason: 'overloaded' });
        continue;
      }
      if (inFlight > 0 && inFlight + w.cost > o.limit) break;
      head++;
      removeAt(w);
      const cost = w.cost;
      w.cost = 0;
      observeWait(waited, now);
      w.resolve({ admitted: true, ticket: start(w.kind, cost, waited) });
    }
    // Compact the array once its answered front is large, so it does not grow without end.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    if (waiting === 0) {
      queue.length = 0;
      head = 0;
    }
  }

  return {
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiting;
    },
    get overloaded() {
      return isOverloaded(t.now());
    },
    costs,
    enter(kind, opts = {}) {
      const cost = costs.costOf(kind);
      if (o.limit <= 0) return Promise.resolve({ admitted: true, ticket: start(kind, cost, 0) });
      const now = t.now();
      // Nothing waits and it fits (or nothing runs at all: work dearer than the whole limit runs alone).
      if (queuedUnits === 0 && (inFlight === 0 || inFlight + cost <= o.limit)) {
        observeWait(0, now);
        return Promise.resolve({ admitted: true, ticket: start(kind, cost, 0) });
      }
      if (waiting >= maxQueue) return Promise.resolve({ admitted: false, reason: 'queue_full' });
      const budget = Math.min(maxWaitMs, opts.budgetMs ?? Infinity);
      const work = costs.workOf(kind);
      const predicted = predictedWaitMs(work);
      if (isOverloaded(now) && predicted > targetMs()) {
        stillOverloaded(now);
        return Promise.resolve({ admitted: false, reason: 'overloaded' });
      }
      if (predicted > budget || budget <= 0) return Promise.resolve({ admitted: false, reason: 'wait_budget' });
      if (opts.signal?.aborted) return Promise.resolve({ admitted: false, reason: 'cancelled' });
      return new Promise<Admission>((resolve) => {
        const w: Waiter = { kind, cost, work, enqueuedAt: now, resolve, timer: undefined };
        const drop = (reason: RefusalReason) => {
          if (w.cost === 0) return;
          removeAt(w);
          w.cost = 0;
          resolve({ admitted: false, reason });
          // A waiter leaving may let the one behind it start (it was blocked only by this one's place).
          pump();
        };
        w.timer = t.setTimeout(() => drop('wait_budget'), budget);
        if (opts.signal) {
          w.signal = opts.signal;
          w.onAbort = () => drop('cancelled');
          opts.signal.addEventListener('abort', w.onAbort, { once: true });
        }
        queue.push(w);
        queuedUnits += cost;
        queuedWork += work;
        waiting++;
      });
    },
  };
}
