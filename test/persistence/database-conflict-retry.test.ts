import test from 'ava';
import { CONFLICT_ATTEMPTS, createDatabase, type Database } from '../../src/persistence/database.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { createTestDatabase } from '../helpers/test-database.js';

// Deadlocks (40P01) and serialization failures (40001) are re-run by Database, then surface as 503, never 500.
let db: Database;
let drop: () => Promise<void>;
test.before(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = createDatabase(d.url, { max: 4 });
  await db.query('CREATE TABLE marks (name text PRIMARY KEY)');
  await db.query('CREATE SEQUENCE tries');
});
test.after.always(async () => {
  await db?.close().catch(() => undefined);
  await drop?.();
});

/** A real PostgreSQL error with SQLSTATE `code`, raised by the server. */
const raise = (code: string) => `DO $$ BEGIN RAISE EXCEPTION 'provoked' USING ERRCODE = '${code}'; END $$`;

test('two transactions that deadlock each other both commit: the victim is re-run', async (t) => {
  let aTries = 0;
  let bTries = 0;
  let aHolds!: () => void;
  let bHolds!: () => void;
  const aHas1 = new Promise<void>((r) => {
    aHolds = r;
  });
  const bHas2 = new Promise<void>((r) => {
    bHolds = r;
  });
  // A locks 1 then 2, B locks 2 then 1: PostgreSQL aborts one of them with 40P01 (after deadlock_timeout).
  const a = db.transaction(async (tx) => {
    aTries++;
    await tx.query('SELECT pg_advisory_xact_lock(1)');
    aHolds();
    await bHas2;
    await tx.query('SELECT pg_advisory_xact_lock(2)');
    await tx.query(`INSERT INTO marks VALUES ('a')`);
  });
  const b = db.transaction(async (tx) => {
    bTries++;
    await tx.query('SELECT pg_advisory_xact_lock(2)');
    bHolds();
    await aHas1;
    await tx.query('SELECT pg_advisory_xact_lock(1)');
    await tx.query(`INSERT INTO marks VALUES ('b')`);
  });
  await Promise.all([a, b]);
  t.is(aTries + bTries, 3, `one of them ran twice (a ${aTries}, b ${bTries})`);
  t.deepEqual(
    (await db.query('SELECT name FROM marks ORDER BY name')).rows.map((r) => r.name),
    ['a', 'b'],
  );
});

test('a conflict that persists answers 503 SERVICE_UNAVAILABLE with Retry-After after a bounded number of runs', async (t) => {
  let tries = 0;
  const err = await t.throwsAsync(() =>
    db.transaction(async (tx) => {
      tries++;
      await tx.query(raise('40001'));
    }),
  );
  t.true(err instanceof ServiceError, String(err));
  t.is((err as ServiceError).code, 'SERVICE_UNAVAILABLE');
  t.is((err as ServiceError).status, 503);
  t.is((err as ServiceError).retryAfter, 1);
  t.is(tries, CONFLICT_ATTEMPTS);
  const single = await t.throwsAsync(() => db.query(raise('40P01')));
  t.is((single as ServiceError).code, 'SERVICE_UNAVAILABLE');
});

test('an autocommit statement aborted by a deadlock is re-run; other errors are not', async (t) => {
  await db.query(
    `DO $$ BEGIN IF nextval('tries') = 1 THEN RAISE EXCEPTION 'provoked' USING ERRCODE = '40P01'; END IF; END $$`,
  );
  t.is((await db.query(`SELECT last_value::int AS n FROM tries`)).rows[0].n, 2, 'failed once, then ran again');
  let tries = 0;
  const err = await t.throwsAsync(() =>
    db.transaction(async (tx) => {
      tries++;
      await tx.query(raise('23505'));
    }),
  );
  t.is((err as { code?: string }).code, '23505');
  t.is(tries, 1);
});

test('a connection lost while a transaction works between statements fails that transaction with 503, and the pool carries on', async (t) => {
  let pid = 0;
  let release!: () => void;
  const paused = new Promise<void>((r) => {
    release = r;
  });
  let inside!: () => void;
  const started = new Promise<void>((r) => {
    inside = r;
  });
  const work = db.transaction(async (tx) => {
    pid = (await tx.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    inside();
    await paused; // the transaction does work of its own (no statement running) while its server process dies
    await tx.query(`INSERT INTO marks VALUES ('after-termination')`);
  });
  await started;
  await db.query('SELECT pg_terminate_backend($1)', [pid]);
  // The lost connection is reported on the idle, checked-out client: this must not become an uncaught exception.
  await new Promise((r) => setTimeout(r, 100));
  release();
  const err = await t.throwsAsync(work);
  t.true(err instanceof ServiceError);
  t.is((err as ServiceError).code, 'SERVICE_UNAVAILABLE');
  t.is((await db.query(`SELECT count(*)::int AS n FROM marks WHERE name = 'after-termination'`)).rows[0].n, 0);
  t.is((await db.query('SELECT 1 AS one')).rows[0].one, 1, 'the pool hands out a working connection afterwards');
});
