import pg from 'pg';
import type { Redis } from './redis-client.js';

/** How long a probe waits for each store before it counts it as not answering. */
export const STORE_PROBE_TIMEOUT_MS = 1000;

/** Which stores answered a probe. */
export interface StoreHealth {
  redis: boolean;
  postgres: boolean;
}

/** Bounded liveness checks of Redis and PostgreSQL, for readiness and gRPC health. */
export interface StoreProbe {
  /** PINGs Redis and runs `SELECT 1` on PostgreSQL at once, each bounded by the timeout; concurrent calls share one check. */
  check(): Promise<StoreHealth>;
  close(): Promise<void>;
}

/** Resolves true when `work` succeeds within `ms`, false when it fails or takes longer. */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}

/**
 * Creates the probe. PostgreSQL is checked on a connection of its own, outside the pool: a hung server would
 * otherwise keep a pooled connection per check, and a pool busy with requests would read as an outage. A check that
 * times out drops that connection (pg destroys the socket of a client with a query in flight) and the next one
 * connects anew.
 */
export function createStoreProbe(opts: { databaseUrl: string; redis: Redis; timeoutMs?: number }): StoreProbe {
  const timeoutMs = opts.timeoutMs ?? STORE_PROBE_TIMEOUT_MS;
  let client: pg.Client | undefined;
  let connected: Promise<void> | undefined;
  let inFlight: Promise<StoreHealth> | undefined;

  const discard = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    connected = undefined;
    void c.end().catch(() => undefined);
  };

  const queryPostgres = async () => {
    if (!client) {
      const c = new pg.Client({
        connectionString: opts.databaseUrl,
        connectionTimeoutMillis: timeoutMs,
        application_name: 'readiness-probe',
      });
      // A connection lost between checks must not crash the process; the next check connects again.
      c.on('error', () => discard(c));
      client = c;
      connected = c.connect().then(() => undefined);
    }
    const c = client;
    try {
      await connected;
      await c.query('SELECT 1');
    } catch (err) {
      discard(c);
      throw err;
    }
  };

  const run = async (): Promise<StoreHealth> => {
    const pgWork = queryPostgres();
    const [redis, postgres] = await Promise.all([within(opts.redis.ping(), timeoutMs), within(pgWork, timeoutMs)]);
    // A check still waiting on a hung server is abandoned with its connection.
    if (!postgres && client) discard(client);
    return { redis, postgres };
  };

  return {
    check() {
      inFlight ??= run().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    async close() {
      await inFlight?.catch(() => undefined);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
