/** A running store child (private redis-server or embedded PostgreSQL) as supervision sees it. */
export interface StoreChild {
  /** Settles when the child exits, whoever ended it. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** A store child kept running: restarted with backoff whenever it dies, until `stop`. */
export interface SupervisedStore<T extends StoreChild> {
  /** The running child, or undefined while it is down and being restarted. */
  current(): T | undefined;
  /** Ends supervision and stops the child cleanly (waits for a restart in progress first). */
  stop(): Promise<void>;
}

/** Options of superviseStore. */
export interface SuperviseOptions<T extends StoreChild> {
  /** Names the store in log lines (`redis-server`, `postgres`). */
  name: string;
  /** The child started by the launcher. */
  first: T;
  /** Starts the store again on the same data directory and port, so clients reconnect to the same address. */
  restart: () => Promise<T>;
  /** Told about exits and restarts. */
  log: (level: 'warn' | 'info' | 'error', msg: string, extra?: Record<string, unknown>) => void;
  /** Delay before the first restart attempt; doubled after each failed attempt. @default 100 */
  initialDelayMs?: number;
  /** Longest delay between restart attempts. @default 5000 */
  maxDelayMs?: number;
  /** Asked before each restart; false once the service is stopping (a Ctrl-C reaches the stores too). @default always */
  shouldRestart?: () => boolean;
}

/**
 * Watches a private store child and starts it again when it exits without `stop` having been called (a crash, a
 * kill -9, the OOM killer). Each restart works on the same data, so Redis replays its AOF and PostgreSQL its WAL;
 * the service's clients reconnect on their own. Restarts are retried without limit, with exponential backoff.
 */
export function superviseStore<T extends StoreChild>(opts: SuperviseOptions<T>): SupervisedStore<T> {
  const initialDelay = opts.initialDelayMs ?? 100;
  const maxDelay = opts.maxDelayMs ?? 5000;
  let child: T | undefined = opts.first;
  let stopping = false;
  let restarting: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;
  const wanted = () => !stopping && (opts.shouldRestart?.() ?? true);

  const pause = (ms: number) =>
    new Promise<void>((res) => {
      const timer = setTimeout(() => {
        wake = undefined;
        res();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        res();
      };
    });

  const recover = async () => {
    const diedAt = Date.now();
    for (let attempt = 1, delay = initialDelay; wanted(); attempt++, delay = Math.min(delay * 2, maxDelay)) {
      await pause(delay);
      if (!wanted()) return;
      try {
        const next = await opts.restart();
        if (!wanted()) {
          await next.stop();
          return;
        }
        child = next;
        opts.log('info', `${opts.name} restarted`, { attempt, downMs: Date.now() - diedAt });
        watch(next);
        return;
      } catch (err) {
        opts.log('error', `${opts.name} restart failed; retrying`, {
          attempt,
          retryInMs: Math.min(delay * 2, maxDelay),
          error: String(err),
        });
      }
    }
  };

  const watch = (c: T) => {
    void c.exited.then(() => {
      if (stopping || child !== c) return;
      child = undefined;
      if (!wanted()) return;
      opts.log('warn', `${opts.name} exited unexpectedly; restarting it on the same data`);
      restarting = recover();
    });
  };
  watch(opts.first);

  return {
    current: () => child,
    async stop() {
      stopping = true;
      wake?.();
      await restarting;
      const c = child;
      child = undefined;
      await c?.stop();
    },
  };
}
