import test from 'ava';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { deleteIdempotencyAnswersBefore } from '../../src/persistence/idempotency-answers.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { createIdempotencyAnswerSweeper, SWEEP_BATCH } from '../../src/workers/idempotency-answer-sweeper.js';
import { createTestClock } from '../helpers/test-clock.js';
import { createTestDatabase } from '../helpers/test-database.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
test.before(async () => {
  database = await createTestDatabase({ schema: 'migrated' });
  db = createDatabase(database.url);
  await runMigrations(db.pool);
});
test.after.always(async () => {
  await db?.close();
  await database?.drop();
});

const HOUR = 3_600_000;

/** Stores `count` answers of organization `org` created at `at`. */
async function answers(org: string, count: number, at: Date) {
  await db.query(
    `INSERT INTO idempotency_answers (organization_id, endpoint, key_hash, payload_hash, answer, created_at)
     SELECT $1, 'v1-bookings', md5(i::text), 'h', '{"data":{}}', $2 FROM generate_series(1, $3) i`,
    [org, at, count],
  );
}

const countOf = async (org: string) =>
  Number((await db.query('SELECT count(*) AS n FROM idempotency_answers WHERE organization_id = $1', [org])).rows[0].n);

test('answers over 24 hours old are deleted in bounded batches until none is left; younger ones stay', async (t) => {
  const clock = createTestClock('2026-03-05T12:00:00Z');
  const now = clock().getTime();
  await answers('org_old', 2 * SWEEP_BATCH + 7, new Date(now - 25 * HOUR));
  await answers('org_young', 3, new Date(now - 23 * HOUR));
  // One statement deletes at most its limit.
  t.is(await deleteIdempotencyAnswersBefore(db, new Date(now - 24 * HOUR), SWEEP_BATCH), SWEEP_BATCH);
  t.is(await countOf('org_old'), SWEEP_BATCH + 7);
  const sweeper = createIdempotencyAnswerSweeper({ db, clock });
  sweeper.start();
  try {
    const deadline = Date.now() + 20_000;
    while ((await countOf('org_old')) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await sweeper.stop();
  }
  t.is(await countOf('org_old'), 0);
  t.is(await countOf('org_young'), 3);
});
