/** How long shutdown lets in-flight HTTP requests, then in-flight gRPC calls, finish before it closes their connections. */
export const DRAIN_GRACE_MS = 10_000;

/**
 * The one lifetime of a running service: each part registers its own stop as it starts, and `stop` runs them last
 * registered first, so a part stops before everything it was built on.
 */
export interface Lifetime {
  /** True from the moment `stop` is called. */
  readonly draining: boolean;
  /** Registers the stop of a part just started; it runs after the stops of every part started later. */
  defer(stop: () => Promise<void> | void): void;
  /** Registers what must be told the moment a stop begins, before any part stops (health turns NOT_SERVING). */
  onDrain(tell: () => void): void;
  /** Tells the drain listeners, then runs every stop in turn; a failing stop is logged and the next one still runs. */
  stop(): Promise<void>;
}

/** Creates an empty lifetime; `log` receives the failures of stops. */
export function createLifetime(log: (msg: string, extra?: Record<string, unknown>) => void): Lifetime {
  const stops: (() => Promise<void> | void)[] = [];
  const drainListeners: (() => void)[] = [];
  let stopping: Promise<void> | undefined;
  const runStops = async () => {
    for (const tell of drainListeners) tell();
    for (const stop of stops.reverse()) {
      await Promise.resolve()
        .then(stop)
        .catch((err: unknown) => log('shutdown step failed', { error: String(err) }));
    }
  };
  return {
    get draining() {
      return stopping !== undefined;
    },
    defer(stop) {
      stops.push(stop);
    },
    onDrain(tell) {
      drainListeners.push(tell);
    },
    // A second call (a signal during a failed start's cleanup) waits for the same stop instead of running it again.
    stop: () => (stopping ??= runStops()),
  };
}
