import { performance } from 'node:perf_hooks';

/** Seconds a refused request or call is told to wait (Retry-After): the shortest an HTTP client can be asked for. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * Metadata key of the token a gateway sends on the calls it makes to the gRPC server of its own process: that server
 * does not count them again (see src/grpc/admit-calls.ts).
 */
export const ADMITTED_TOKEN_KEY = 'x-service-admitted';

/**
 * The longest a request waits in the queue to start by default, never past its own deadline (docs/operations.md
 * "Admission and overload"). One firm bound, measured from its arrival: how fast the door finished work meanwhile does
 * not shorten it, since on a process short of CPU (a loaded host) a queue that moves can finish nothing for seconds
 * (tens of concurrent creates behind one slot's lock, PostgreSQL starved of CPU), and its clients are to be served, not
 * sent away to retry at the back of it. Overload is shed by the target (CoDel, below), not by this bound.
 */
export const DEFAULT_MAX_WAIT_MS = 10_000;
/** Requests one door holds waiting by default; beyond, refused at once. */
export const DEFAULT_MAX_QUEUE = 1024;
/** Requests one door runs at once at most, by default (the adaptive limit moves below it). */
export const DEFAULT_MAX_LIMIT = 64;
/**
 * The fewest requests the adaptive limit lets run at once: a request spends part of its time waiting on PostgreSQL or
 * Redis, and fewer than this leave a saturated loop idle in those waits (reads at 32 clients lost a fifth of their
 * throughput with 4).
 */
const MIN_LIMIT = 16;
/** Requests a door runs at once before it has learned anything. */
const INITIAL_LIMIT = 16;

/** How often the limit is adapted to how busy the event loop has been. */
const ADAPT_INTERVAL_MS = 100;
/** Below this share of its time busy, the event loop has room: a door with waiting work runs more at once. */
const ROOM_BELOW = 0.8;
/** Above this share, the event loop is saturated: more work at once adds only latency, so the door runs less. */
const SATURATED_ABOVE = 0.95;

/**
 * How often a door whose work keeps waiting past the target looks at whether its queue drains. A burst at a quiet
 * door drains (its clients send nothing more while it does); a standing load does not.
 */
const OVERLOAD_INTERVAL_MS = 500;
/**
 * A queue still holding this share of what it held an interval ago, and refilled meanwhile by arrivals at least this
 * share of what it started, is standing, not draining. A burst gets no arrivals while it waits (its clients wait for
 * their answers), however slowly it drains on a process short of CPU: it is never overload.
 */
const STANDING_SHARE = 0.8;
/**
 * Intervals in a row a queue must stand before the door is overloaded: a standing load keeps refilling its queue, while
 * two bursts that overlap (a second burst arriving as the first drains slowly on a process short of CPU) refill it
 * once and then drain. With one interval, 25 creates and 25 confirms landing 300 ms apart on one process sharing two
 * busy cores were refused as overload (`test/ops/no-double-booking`).
 */
const STANDING_INTERVALS = 2;
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
/**
 * The shortest wait that counts as past the target: a queue of ordinary clients on a busy process waits some tens of
 * milliseconds (32 clients of reads: about 20-30 ms here), and serving them in turn is what they want.
 */
const MIN_TARGET_MS = 50;
/**
 * The target wait is at least half the average service time of one request: admitted work then takes at most about
 * 1.5 times as long as it does at capacity, however many clients are sent away.
 */
const TARGET_WORK_FACTOR = 0.5;
/** How much each new sample moves the average service time (an exponentially weighted moving average). */
const EWMA_WEIGHT = 0.1;

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

/** The share of its time the event loop was busy since the previous call (performance.eventLoopUtilization). */
function eventLoopBusy(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  };
}

/** Options of createAdmissionQueue. */
export interface AdmissionQueueOptions {
  /** The most requests run at once (the adaptive limit stays at or below it); 0: no limit at all. */
  limit: number;
  /** Requests that may wait at once; beyond, refused at once. @default DEFAULT_MAX_QUEUE */
  maxQueue?: number;
  /** The longest a request waits to start (its own deadline may be shorter). @default DEFAULT_MAX_WAIT_MS */
  maxWaitMs?: number;
  timers?: AdmissionTimers;
  /**
   * The share (0..1) of its time the process's event loop was busy since the previous call; tests pass their own.
   * @default performance.eventLoopUtilization
   */
  busy?: () => number;
}

/** Why work was not admitted. */
export type RefusalReason =
  /** The queue holds as many as it may. */
  | 'queue_full'
  /** It could not start within the longest wait (or its own deadline). */
  | 'wait_budget'
  /** The door is overloaded and the work would wait past the target. */
  | 'overloaded'
  /** The caller went away while it waited. */
  | 'cancelled';

/** Admitted work: call `leave` once when it is done. */
export interface AdmissionTicket {
  /** How long it waited to start, in milliseconds. */
  readonly waitedMs: number;
  /** Frees its place and records its service time (once; later calls do nothing). */
  leave(): void;
}

/** The outcome of asking to be admitted. */
export type Admission = { admitted: true; ticket: AdmissionTicket } | { admitted: false; reason: RefusalReason };

/** A door's admission: work runs within its limit, the rest waits in a bounded queue. */
export interface AdmissionQueue {
  /**
   * Admits a request: at once when it fits, else after waiting its turn, or refuses it. `budgetMs` shortens the longest
   * wait (the caller's remaining deadline); `signal` withdraws a waiting request.
   */
  enter(opts?: { budgetMs?: number; signal?: AbortSignal }): Promise<Admission>;
  /** Requests running now. */
  readonly inFlight: number;
  /** Requests waiting now. */
  readonly waiting: number;
  /** How many requests may run at once now (adapted to how busy the event loop is). */
  readonly limit: number;
  /** Whether the door is overloaded now (waits are held to the target, the rest refused at once). */
  readonly overloaded: boolean;
}

interface Waiter {
  enqueuedAt: number;
  resolve(a: Admission): void;
  timer: unknown;
  /** Set once the waiter has been answered (started, refused, withdrawn) while it still sits in the array. */
  done: boolean;
  onAbort?: () => void;
  signal?: AbortSignal;
}

/**
 * createAdmissionQueue bounds the requests one door of a process runs at once and queues the rest, refusing only what
 * could not start in time or what overload brings. **The limit adapts** to the event loop (additive increase,
 * multiplicative decrease, every 100 ms): while requests wait and the loop has room (busy under 80% of the time: the
 * work waits on PostgreSQL or Redis), more run at once, up to `limit`; while the loop is saturated (busy over 95%),
 * fewer, down to 16, since running more on one saturated loop adds only latency. **The queue**: a request that does not
 * fit waits in FIFO order and is refused only when the queue is full, when it could not start within the longest wait
 * (10 s by default, never past the caller's own deadline), or (on a saturated loop, where the prediction holds) at once
 * when its predicted wait (the requests ahead of it, over the limit, times the average service time) exceeds that. A
 * burst of tens of requests thus waits its turn instead of being refused, even on a process short of CPU whose queue
 * finishes nothing for seconds.
 *
 * **Overload** (CoDel, as in Nichols and Jacobson's queue management and Facebook's adaptive queueing): when work has
 * kept waiting past a target (half the average service time, at least 50 ms) for two half-second intervals, in each
 * of which the queue has not drained and arrivals kept refilling it (a burst gets none: its clients wait for their
 * answers; two bursts that overlap refill it once), on a saturated event loop or with the limit at its maximum, the door
 * is overloaded: arrivals that would wait past the target are refused at once (a cheap answer), and so are waiters that
 * have already waited past it. A queue that stands while the loop has room and the limit can still grow is not
 * overload: the limit grows instead. Each sign of overload keeps it for another 1.5 s; without one (the load has
 * gone) it ends by itself, so no state outlives the load for long: within 2 s of its last sign, a wait past the target
 * starts it again at once (clients sent away come back together after their Retry-After).
 */
export function createAdmissionQueue(o: AdmissionQueueOptions): AdmissionQueue {
  const t = o.timers ?? REAL_TIMERS;
  const busy = o.busy ?? eventLoopBusy();
  const maxQueue = o.maxQueue ?? DEFAULT_MAX_QUEUE;
  const maxWaitMs = o.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const maxLimit = o.limit;
  const minLimit = Math.min(MIN_LIMIT, maxLimit);
  let limit = Math.min(INITIAL_LIMIT, maxLimit);
  const queue: Waiter[] = [];
  let head = 0;
  let inFlight = 0;
  let waiting = 0;
  let workMs: number | undefined;
  let adaptedAt = t.now();
  let saturated = false;
  // CoDel state: since when waits have been above the target and how many waited then, and the overload.
  let aboveSince: number | undefined;
  let waitingAtMark = 0;
  /** Requests that joined the queue, and that left it to start, since the mark: a queue refilled as it drains stands. */
  let arrivedSinceMark = 0;
  let startedSinceMark = 0;
  /** Intervals in a row in which the queue stood (see STANDING_INTERVALS). */
  let standingIntervals = 0;
  let overloadedUntil = -Infinity;
  const isOverloaded = (now: number) => now < overloadedUntil;
  /** Work waited, or would wait, past the target while overloaded: the overload goes on. */
  const stillOverloaded = (now: number) => {
    overloadedUntil = now + OVERLOAD_HOLD_MS;
  };

  const targetMs = () => Math.min(maxWaitMs, Math.max(MIN_TARGET_MS, TARGET_WORK_FACTOR * (workMs ?? 0)));
  /** How long a request arriving now would wait: the requests ahead of it, over the limit, times a service time. */
  const predictedWaitMs = () => ((waiting + 1) * (workMs ?? 0)) / Math.max(1, limit);

  /** Moves the limit by how busy the event loop was since the last adaptation (at most every 100 ms). */
  const adapt = (now: number) => {
    if (now - adaptedAt < ADAPT_INTERVAL_MS) return;
    adaptedAt = now;
    const share = busy();
    saturated = share > SATURATED_ABOVE;
    if (saturated) limit = Math.max(minLimit, Math.floor(limit * 0.9));
    else if (share < ROOM_BELOW && waiting > 0) limit = Math.min(maxLimit, limit + Math.max(1, Math.floor(limit / 4)));
  };

  /** Updates the overload state from the wait of work that starts now. */
  const observeWait = (waitedMs: number, now: number) => {
    const target = targetMs();
    if (isOverloaded(now)) {
      if (waitedMs > target) stillOverloaded(now);
      return;
    }
    if (waitedMs < target) {
      aboveSince = undefined;
      standingIntervals = 0;
      return;
    }
    if (now - (overloadedUntil - OVERLOAD_HOLD_MS) < RECENT_OVERLOAD_MS) {
      stillOverloaded(now);
      return;
    }
    const mark = () => {
      aboveSince = now;
      waitingAtMark = waiting;
      arrivedSinceMark = 0;
      startedSinceMark = 0;
    };
    if (aboveSince === undefined) return mark();
    if (now - aboveSince < OVERLOAD_INTERVAL_MS) return;
    // An interval of long waits: a queue that still holds most of what it held and that arrivals kept refilling stood;
    // two such intervals on a saturated loop, with no drained one between, are a standing load (overloaded). One that
    // drained, or that nothing new joined (a burst draining slowly on a process short of CPU), did not, and one whose
    // loop has room waits for the limit to grow, unless the limit is at its maximum: then the work waits on something
    // downstream (PostgreSQL short of CPU) that running more at once would not speed up, and the queue would only grow
    // its clients' waits up to the longest wait.
    const stood =
      waiting > 0 && waiting >= waitingAtMark * STANDING_SHARE && arrivedSinceMark >= startedSinceMark * STANDING_SHARE;
    // A burst's end (drained, or nothing new arrived) starts the count again; a loop that had room at this interval's
    // end only leaves it where it was: the measure is taken every 100 ms, and on a host short of CPU it flickers.
    if (!stood) standingIntervals = 0;
    else if (saturated || limit >= maxLimit) standingIntervals++;
    if (standingIntervals >= STANDING_INTERVALS) {
      standingIntervals = 0;
      stillOverloaded(now);
    }
    mark();
  };

  const start = (waitedMs: number): AdmissionTicket => {
    inFlight++;
    const startedAt = t.now();
    let left = false;
    return {
      waitedMs,
      leave() {
        if (left) return;
        left = true;
        inFlight--;
        const now = t.now();
        workMs = workMs === undefined ? now - startedAt : workMs + EWMA_WEIGHT * (now - startedAt - workMs);
        adapt(now);
        pump();
      },
    };
  };

  const answer = (w: Waiter, a: Admission) => {
    w.done = true;
    waiting--;
    t.clearTimeout(w.timer);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(a);
  };

  /** Starts waiters in order while they fit; when overloaded, refuses those that waited past the target. */
  function pump() {
    while (head < queue.length) {
      const w = queue[head]!;
      if (w.done) {
        head++;
        continue;
      }
      const now = t.now();
      const waited = now - w.enqueuedAt;
      if (isOverloaded(now) && waited > targetMs()) {
        stillOverloaded(now);
        head++;
        answer(w, { admitted: false, reason: 'overloaded' });
        continue;
      }
      if (inFlight >= limit) break;
      head++;
      startedSinceMark++;
      observeWait(waited, now);
      answer(w, { admitted: true, ticket: start(waited) });
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
    get limit() {
      return limit;
    },
    get overloaded() {
      return isOverloaded(t.now());
    },
    enter(opts = {}) {
      if (maxLimit <= 0) return Promise.resolve({ admitted: true, ticket: start(0) });
      const now = t.now();
      adapt(now);
      // A limit that just grew lets waiters start before this arrival is judged.
      if (waiting > 0 && inFlight < limit) pump();
      // Nothing waits and it fits.
      if (waiting === 0 && inFlight < limit) {
        observeWait(0, now);
        return Promise.resolve({ admitted: true, ticket: start(0) });
      }
      if (waiting >= maxQueue) return Promise.resolve({ admitted: false, reason: 'queue_full' });
      // The longest it may wait: the door's bound, never past its caller's deadline.
      const budget = Math.min(maxWaitMs, opts.budgetMs ?? Infinity);
      const predicted = predictedWaitMs();
      if (isOverloaded(now) && predicted > targetMs()) {
        stillOverloaded(now);
        return Promise.resolve({ admitted: false, reason: 'overloaded' });
      }
      // The prediction holds for work that shares a saturated loop; work that waits on a lock or a store drains at the
      // pace of that, so it is given its budget to wait instead.
      if (budget <= 0 || (saturated && predicted > budget))
        return Promise.resolve({ admitted: false, reason: 'wait_budget' });
      if (opts.signal?.aborted) return Promise.resolve({ admitted: false, reason: 'cancelled' });
      return new Promise<Admission>((resolve) => {
        const w: Waiter = { enqueuedAt: now, resolve, timer: undefined, done: false };
        const drop = (reason: RefusalReason) => {
          if (w.done) return;
          answer(w, { admitted: false, reason });
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
        waiting++;
        arrivedSinceMark++;
      });
    },
  };
}
