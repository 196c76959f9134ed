import test from 'ava';
import type pg from 'pg';
import { boundPoolWaiters } from '../../src/persistence/bound-pool-waiters.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { createTestDatabase } from '../helpers/test-database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

/** Settles `p` into what it became, without throwing: 'pending' until it has. */
function track<T>(p: Promise<T>) {
  let state: { status: 'pending' } | { status: 'fulfilled'; value: T } | { status: 'rejected'; reason: unknown } = {
    status: 'pending',
  };
  const settled = p.then(
    (value) => {
      state = { status: 'fulfilled', value };
    },
    (reason: unknown) => {
      state = { status: 'rejected', reason };
    },
  );
  return {
    get state() {
      return state;
    },
    settled,
  };
}

/** Waits (bounded) until the pool has `n` waiters. */
async function untilWaiting(pool: pg.Pool, n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pool.waitingCount !== n) {
    if (Date.now() > deadline) throw new Error(`the pool never had ${n} waiters (has ${pool.waitingCount})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('with every connection in use and the waiters at their bound, a query or transaction is refused 503 at once; once a connection frees, callers are served again', async (t) => {
  const db: Database = createDatabase(database.url, { max: 1 });
  let refused = 0;
  boundPoolWaiters(db.pool, { maxWaiters: 1, onRefused: () => refused++ });
  try {
    const busy = await db.pool.connect();
    const waiter = track(db.query('SELECT 1 AS one'));
    await untilWaiting(db.pool, 1);

    for (const attempt of [
      () => db.query('SELECT 2'),
      () => db.transaction(async (tx) => tx.query('SELECT 3')),
      () => db.pool.connect(),
    ]) {
      const err = await t.throwsAsync(attempt());
      t.true(err instanceof ServiceError, String(err));
      t.is((err as ServiceError).code, 'SERVICE_UNAVAILABLE');
      t.is((err as ServiceError).retryAfter, 1);
    }
    // Refused while the admitted waiter still waits: nothing queued behind it.
    t.is(waiter.state.status, 'pending');
    t.is(refused, 3);

    busy.release();
    await waiter.settled;
    t.is(waiter.state.status, 'fulfilled');
    t.is((await db.query('SELECT 4 AS four')).rows[0].four, 4);
    t.is(await db.transaction(async (tx) => (await tx.query('SELECT 5 AS five')).rows[0].five), 5);
  } finally {
    await db.close();
  }
});

test('a free connection or room to open one is never refused, whatever the waiter bound', async (t) => {
  const db: Database = createDatabase(database.url, { max: 2 });
  boundPoolWaiters(db.pool, { maxWaiters: 1 });
  try {
    // Two at once open both connections; no one waits.
    const rows = await Promise.all([db.query('SELECT 1 AS n'), db.query('SELECT 2 AS n')]);
    t.deepEqual(
      rows.map((r) => r.rows[0].n),
      [1, 2],
    );
    // One waiter is within the bound.
    const both = await Promise.all([db.pool.connect(), db.pool.connect()]);
    const third = track(db.query('SELECT 3 AS n'));
    await untilWaiting(db.pool, 1);
    for (const c of both) c.release();
    await third.settled;
    t.is(third.state.status, 'fulfilled');
  } finally {
    await db.close();
  }
});
