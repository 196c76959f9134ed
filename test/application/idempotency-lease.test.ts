import test from 'ava';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { withIdempotency } from '../../src/application/with-idempotency.js';
import {
  createIdempotencyStore,
  payloadHash,
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyStore,
} from '../../src/application/idempotency.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { insertIdempotencyAnswer } from '../../src/persistence/idempotency-answers.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { startTestRedis, type TestRedis } from '../helpers/private-redis.js';
import { createTestClock } from '../helpers/test-clock.js';
import { createTestDatabase } from '../helpers/test-database.js';

// Real Redis and PostgreSQL; the lease runs on Redis's own clock (PX), so the lease tests wait real seconds.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
let redis: TestRedis;
test.before(async () => {
  database = await createTestDatabase({ schema: 'migrated' });
  db = createDatabase(database.url);
  await runMigrations(db.pool);
  redis = await startTestRedis();
});
test.after.always(async () => {
  await redis?.stop();
  await db?.close();
  await database?.drop();
});

const clock = createTestClock('2026-03-02T12:00:00Z');
const storeOn = (client = redis.client, waitMs?: number) =>
  createIdempotencyStore({ redis: client, db, clock, ...(waitMs !== undefined ? { waitMs } : {}) });
const org = () => `org_${randomUUID().slice(0, 8)}`;

/** The claim's lease, failing the test when the claim was a replay. */
function leaseOf(c: IdempotencyClaim) {
  if (c.kind !== 'new') throw new Error(`expected a new claim, got ${JSON.stringify(c)}`);
  return c.lease;
}

/** The error code a claim is refused with, or 'claimed'. */
async function refusal(store: IdempotencyStore, o: string, key: string, hash = 'h1') {
  try {
    const c = await store.claim(o, 'confirm:res_1', key, hash);
    return c.kind === 'new' ? 'claimed' : 'replay';
  } catch (err) {
    return err instanceof ServiceError ? err.code : String(err);
  }
}

test('a key whose owner died (stopped renewing) is free within the lease; a live owner keeps it past the lease', async (t) => {
  t.timeout(60_000);
  const o = org();
  // The owner's own connection: closing it stops its renewals exactly as the death of its process would.
  const ownerRedis = await redis.connect();
  leaseOf(await storeOn(ownerRedis).claim(o, 'confirm:res_1', 'dies', 'h1'));
  await ownerRedis.close();
  const died = Date.now();
  const retry = storeOn();
  let claimed: IdempotencyClaim | undefined;
  while (!claimed && Date.now() - died < 15_000) {
    claimed = await retry.claim(o, 'confirm:res_1', 'dies', 'h1').catch((err: unknown) => {
      if (!(err instanceof ServiceError) || err.code !== 'IDEMPOTENCY_REQUEST_IN_PROGRESS') throw err;
      return undefined;
    });
  }
  const freedAfter = Date.now() - died;
  t.log(`the dead owner's key was claimed again ${freedAfter} ms after its death`);
  t.is(claimed?.kind, 'new');
  t.true(freedAfter <= IDEMPOTENCY_LEASE_MS + 1000, `freed after ${freedAfter} ms`);
  await leaseOf(claimed!).release();

  // A live owner renews: a twin arriving after more than one lease still finds the request in progress.
  const live = leaseOf(await storeOn().claim(o, 'confirm:res_1', 'lives', 'h1'));
  await new Promise((r) => setTimeout(r, IDEMPOTENCY_LEASE_MS + 1500));
  t.is(await refusal(storeOn(redis.client, 100), o, 'lives'), 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
  await live.complete({ id: 'bkg_live' });
  const replay = await storeOn().claim(o, 'confirm:res_1', 'lives', 'h1');
  t.deepEqual(replay, { kind: 'replay', response: { id: 'bkg_live' } });
});

test("completion and release are compare-and-set on the owner: a lapsed owner neither overwrites nor frees its successor's key", async (t) => {
  const o = org();
  const first = leaseOf(await storeOn().claim(o, 'confirm:res_1', 'k', 'h1'));
  // The first owner stalled past its lease (its marker lapsed); a retry took the key over.
  await redis.client.del((await redis.client.keys(`idem:{${o}}:*`))[0]!);
  const second = leaseOf(await storeOn().claim(o, 'confirm:res_1', 'k', 'h1'));
  await first.complete({ id: 'bkg_first' });
  await first.release();
  t.is(await refusal(storeOn(redis.client, 100), o, 'k'), 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
  await second.complete({ id: 'bkg_second' });
  t.deepEqual(await storeOn().claim(o, 'confirm:res_1', 'k', 'h1'), {
    kind: 'replay',
    response: { id: 'bkg_second' },
  });
  t.is(await refusal(storeOn(), o, 'k', 'h2'), 'IDEMPOTENCY_KEY_REUSED');
});

test('a durable write whose answer Redis lost replays the answer it committed in PostgreSQL, for 24 hours', async (t) => {
  const o = org();
  const caller = { organizationId: o } as Caller;
  const store = storeOn();
  const payload = { optionId: 'opt_1' };
  const first = leaseOf(await store.claim(o, 'confirm:res_1', 'k', payloadHash(payload)));
  // The write commits its answer with itself; its process dies before Redis hears of it, or Redis loses it.
  await insertIdempotencyAnswer(db, first.record, { id: 'bkg_1', status: 'confirmed' }, clock());
  await redis.client.del(await redis.client.keys(`idem:{${o}}:*`));
  // The retry runs again, and the write refuses it (here: the slot is taken by the first run's booking).
  const slotTaken = () => Promise.reject(new ServiceError('SLOT_UNAVAILABLE'));
  const replay = await withIdempotency(store, caller, 'confirm:res_1', 'k', payload, slotTaken, { durable: true });
  t.deepEqual(replay.result, { id: 'bkg_1', status: 'confirmed' });
  t.deepEqual(replay.headers, { 'idempotent-replayed': 'true' });
  // The replay put the answer back in Redis: the next replay does not run at all.
  const fromRedis = await withIdempotency(store, caller, 'confirm:res_1', 'k', payload, () => t.fail() as never, {
    durable: true,
  });
  t.deepEqual(fromRedis.result, { id: 'bkg_1', status: 'confirmed' });
  await redis.client.del(await redis.client.keys(`idem:{${o}}:*`));
  await t.throwsAsync(
    withIdempotency(store, caller, 'confirm:res_1', 'k', { optionId: 'opt_2' }, slotTaken, { durable: true }),
    { instanceOf: ServiceError, message: /different payload/ },
  );
  // The refusal freed the key it claimed: the first payload still replays at once.
  t.is(
    (await withIdempotency(store, caller, 'confirm:res_1', 'k', payload, slotTaken, { durable: true })).headers[
      'idempotent-replayed'
    ],
    'true',
  );
  // Past 24 hours the key is forgotten (CONTRACT part 4): the run's own answer stands.
  await redis.client.del(await redis.client.keys(`idem:{${o}}:*`));
  clock.advance(IDEMPOTENCY_TTL_MS + 1000);
  try {
    const err = await t.throwsAsync<ServiceError>(
      withIdempotency(store, caller, 'confirm:res_1', 'k', payload, slotTaken, { durable: true }),
    );
    t.is(err?.code, 'SLOT_UNAVAILABLE');
  } finally {
    clock.advance(-(IDEMPOTENCY_TTL_MS + 1000));
  }
});
