import test from 'ava';
import type pg from 'pg';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { createTestDatabase } from '../helpers/test-database.js';

// A connection can be lost while pg-pool hands a client to the next holder, before the holder listens for errors
// (PostgreSQL's shutdown FATAL parsed in the same chunk as the previous answer). That must cost one 503, not the process.
let db: Database;
let drop: () => Promise<void>;
test.before(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = createDatabase(d.url, { max: 2 });
});
test.after.always(async () => {
  await db?.close().catch(() => undefined);
  await drop?.();
});

/** pg's own handling of a lost connection (private: the path a FATAL or a socket error takes): unqueryable, 'error'. */
const loseConnection = (client: pg.PoolClient, err: Error) =>
  (client as unknown as { _handleErrorEvent(e: Error): void })._handleErrorEvent(err);

test('a connection lost during the hand-over of a pooled client: 503 for that transaction, no crash, the next one runs', async (t) => {
  let lost = 0;
  const onAcquire = (client: pg.PoolClient) => {
    if (lost++ > 0) return;
    // Runs after pg-pool removed its listener and before the holder's code resumes (ticks run before promise jobs).
    process.nextTick(() => {
      t.is(client.listenerCount('error') > 0, true, 'someone listens for the lost connection');
      loseConnection(
        client,
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      );
    });
  };
  db.pool.on('acquire', onAcquire);
  try {
    const failed = await t.throwsAsync(db.transaction((tx) => tx.query('SELECT 1')));
    t.true(failed instanceof ServiceError);
    t.is((failed as ServiceError).code, 'SERVICE_UNAVAILABLE');
  } finally {
    db.pool.off('acquire', onAcquire);
  }
  const again = await db.transaction((tx) => tx.query<{ n: number }>('SELECT 2 AS n'));
  t.is(again.rows[0]?.n, 2);
});
