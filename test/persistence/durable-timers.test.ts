import test from 'ava';
import {
  createDurableTimers,
  createTimerWorker,
  parseTimerMember,
  timerMember,
  type TimerRef,
} from '../../src/persistence/durable-timers.js';
import { startTestRedis, type TestRedis } from '../helpers/private-redis.js';
import { createTestClock } from '../helpers/test-clock.js';

// The timer sets are global keys, so these tests run one at a time on an emptied server.
let redis: TestRedis;
test.before(async () => {
  redis = await startTestRedis();
});
test.beforeEach(async () => {
  await redis.client.flushAll();
});
test.after.always(async () => {
  await redis?.stop();
});

const T0 = new Date('2026-03-02T10:00:00.000Z');
const plus = (ms: number) => new Date(T0.getTime() + ms);

test.serial('members encode kind, id and name', (t) => {
  t.is(timerMember('hold', 'hold_1', 'expire'), 'hold|hold_1|expire');
  t.deepEqual(parseTimerMember('hold|hold_1|expire'), { kind: 'hold', id: 'hold_1', name: 'expire' });
  for (const bad of ['', 'a|b', 'a b', '{x}']) t.throws(() => timerMember('hold', bad, 'expire'), undefined, bad);
  t.throws(() => parseTimerMember('hold|x'));
});

test.serial('a timer is claimed once, only when due', async (t) => {
  const timers = createDurableTimers({ redis: redis.client });
  await timers.schedule('hold', 'h1', 'expire', plus(1000));
  t.deepEqual(await timers.claimDue(plus(999), 10), []);
  const claimed = await timers.claimDue(plus(1000), 10);
  t.deepEqual(
    claimed.map((c) => [c.kind, c.id, c.name]),
    [['hold', 'h1', 'expire']],
  );
  t.deepEqual(await timers.claimDue(plus(5000), 10), []);
  t.true(await timers.ack(claimed[0]!));
  t.deepEqual(await timers.claimDue(plus(60_000_000), 10), [], 'an acknowledged timer never comes back');
});

test.serial('rescheduling moves a timer; cancel removes it', async (t) => {
  const timers = createDurableTimers({ redis: redis.client });
  await timers.schedule('hold', 'h1', 'expire', plus(1000));
  await timers.schedule('hold', 'h1', 'expire', plus(5000));
  t.is((await timers.dueAt('hold', 'h1', 'expire'))?.getTime(), plus(5000).getTime());
  t.deepEqual(await timers.claimDue(plus(1000), 10), []);
  await timers.cancel('hold', 'h1', 'expire');
  t.deepEqual(await timers.claimDue(plus(10_000), 10), []);
});

test.serial('concurrent claimers on separate connections never share a timer', async (t) => {
  const timers = createDurableTimers({ redis: redis.client });
  for (let i = 0; i < 60; i++) await timers.schedule('booking', `b${i}`, 'complete', plus(i));
  const workers = await Promise.all(
    Array.from({ length: 6 }, async () => createDurableTimers({ redis: await redis.connect() })),
  );
  const batches = await Promise.all(workers.flatMap((w) => [w.claimDue(plus(100), 7), w.claimDue(plus(100), 7)]));
  const rest = await timers.claimDue(plus(100), 100);
  const all = [...batches.flat(), ...rest].map((c) => c.member);
  t.is(all.length, 60);
  t.is(new Set(all).size, 60);
});

test.serial('an unacknowledged timer is re-delivered after its lease, and a stale ack is refused', async (t) => {
  const timers = createDurableTimers({ redis: redis.client, leaseMs: 10_000 });
  await timers.schedule('hold', 'h1', 'expire', plus(0));
  const [first] = await timers.claimDue(plus(0), 10);
  t.truthy(first);
  t.is(await timers.reclaimExpiredLeases(plus(9_999)), 0);
  t.deepEqual(await timers.claimDue(plus(9_999), 10), []);
  t.is(await timers.reclaimExpiredLeases(plus(10_000)), 1);
  const [second] = await timers.claimDue(plus(10_000), 10);
  t.is(second?.member, first!.member);
  t.false(await timers.ack(first!), 'the crashed worker lost its lease');
  t.true(await timers.ack(second!));
  t.is(await timers.reclaimExpiredLeases(plus(1_000_000)), 0);
});

test.serial('a deadline that passed while no worker ran fires on the next worker start', async (t) => {
  const clock = createTestClock(plus(60_000));
  const timers = createDurableTimers({ redis: redis.client });
  await timers.schedule('hold', 'h1', 'expire', plus(1000));
  await timers.schedule('hold', 'h2', 'expire', plus(120_000));
  const fired: TimerRef[] = [];
  let resolveFired!: () => void;
  const firedOnce = new Promise<void>((r) => {
    resolveFired = r;
  });
  const worker = createTimerWorker({
    timers,
    clock,
    intervalMs: 10_000,
    handler: async (ref) => {
      fired.push(ref);
      resolveFired();
    },
  });
  worker.start();
  await firedOnce;
  await worker.stop();
  t.deepEqual(fired, [{ kind: 'hold', id: 'h1', name: 'expire' }]);
  t.truthy(await timers.dueAt('hold', 'h2', 'expire'), 'a future timer waits');
});

test.serial(
  'a handler that fails gets the timer again after retryMs, not after the whole lease; a repeated delivery is harmless',
  async (t) => {
    const clock = createTestClock(plus(0));
    const timers = createDurableTimers({ redis: redis.client, leaseMs: 5_000 });
    await timers.schedule('hold', 'h1', 'expire', plus(0));
    const state = { expired: 0, calls: 0 };
    const errors: unknown[] = [];
    const worker = createTimerWorker({
      timers,
      clock,
      onError: (e) => errors.push(e),
      handler: async () => {
        state.calls++;
        if (state.calls === 1) throw new Error('crash before the work');
        // Idempotent: the work happens once however often the timer comes.
        state.expired = 1;
      },
    });
    t.is(await worker.tick(), 0);
    t.is(errors.length, 1);
    t.deepEqual(await timers.dueAt('hold', 'h1', 'expire'), plus(2_000), 'given back, due again after retryMs');
    clock.advance(1_999);
    t.is(await worker.tick(), 0, 'not due yet');
    clock.advance(1);
    t.is(await worker.tick(), 1, 'retried 2 s after the failure, well before the 5 s lease would end');
    await timers.schedule('hold', 'h1', 'expire', plus(0));
    t.is(await worker.tick(), 1);
    t.is(state.calls, 3);
    t.is(state.expired, 1);
  },
);

test.serial('stop ends the polling loop', async (t) => {
  const clock = createTestClock(plus(0));
  const timers = createDurableTimers({ redis: redis.client });
  let calls = 0;
  const worker = createTimerWorker({
    timers,
    clock,
    intervalMs: 5,
    handler: async () => {
      calls++;
    },
  });
  worker.start();
  await new Promise((r) => setTimeout(r, 30));
  await worker.stop();
  await timers.schedule('hold', 'h1', 'expire', plus(0));
  await new Promise((r) => setTimeout(r, 30));
  t.is(calls, 0);
  t.truthy(await timers.dueAt('hold', 'h1', 'expire'));
});
