import pg from 'pg';
import type { Database } from './database.js';

/** The channel migration 0015's trigger notifies when an offer job is queued. */
export const OFFER_JOBS_CHANNEL = 'waitlist_offer_jobs';

/** How long a lost listener connection waits before it connects again. */
const RECONNECT_MS = 1_000;

/**
 * Listens on its own connection (not one of the pool's) for offer jobs queued by any process and calls `onJob` once
 * each notifying transaction has committed. A lost connection is made again after RECONNECT_MS; notifications sent
 * meanwhile are lost, so the caller keeps polling as well. `stop` closes the connection. Behind a transaction pooler
 * it does not listen (LISTEN needs a session of its own, which such a pooler does not keep): the poll alone wakes.
 */
export function listenForOfferJobs(
  db: Pick<Database, 'pool' | 'transactionPooler'>,
  onJob: () => void,
  log: (msg: string, extra?: Record<string, unknown>) => void,
): { stop(): Promise<void> } {
  if (db.transactionPooler) {
    log('waitlist offer listener off behind a transaction pooler: offers follow the poll');
    return { stop: async () => undefined };
  }
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };
  async function connect(): Promise<void> {
    if (stopped) return;
    // The pool's own settings (address, credentials, timeouts) for one connection of its own.
    const c = new pg.Client(db.pool.options);
    client = c;
    c.on('notification', (n) => {
      if (n.channel === OFFER_JOBS_CHANNEL) onJob();
    });
    c.on('error', () => {
      if (client === c) client = undefined;
      c.end().catch(() => undefined);
      again();
    });
    c.on('end', () => {
      if (client === c) client = undefined;
      again();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OFFER_JOBS_CHANNEL}`);
      if (stopped) await c.end();
      // Jobs queued while no one listened are picked up at once rather than at the next poll.
      else onJob();
    } catch (err) {
      log('waitlist offer listener could not connect', { error: String(err) });
      if (client === c) client = undefined;
      await c.end().catch(() => undefined);
      again();
    }
  }
  void connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
