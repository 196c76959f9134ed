import test from 'ava';
import { randomBytes } from 'node:crypto';
import { setup, assign } from 'xstate';
import { createActorChanges } from '../../src/persistence/actor-changes.js';
import { createActorStore, type ActorKind } from '../../src/persistence/actor-store.js';
import { startTestRedis, type TestRedis } from '../helpers/private-redis.js';
import { createTestClock } from '../helpers/test-clock.js';

let redis: TestRedis;
test.before(async () => {
  redis = await startTestRedis();
});
test.after.always(async () => {
  await redis?.stop();
});

const uid = (p: string) => `${p}_${randomBytes(5).toString('hex')}`;
const counterMachine = setup({
  types: { context: {} as { count: number }, events: {} as { type: 'INC' } },
  actions: { increment: assign({ count: ({ context }) => context.count + 1 }) },
}).createMachine({ id: 'counter', context: { count: 0 }, on: { INC: { actions: 'increment' } } });
const counterKind: ActorKind<typeof counterMachine> = { name: 'counter', machine: counterMachine, version: 1 };

/** Counts calls and lets a test wait (bounded) for the next one. */
function calls() {
  let count = 0;
  let wake: (() => void) | undefined;
  return {
    onChange: () => {
      count++;
      wake?.();
    },
    get count() {
      return count;
    },
    /** Waits until the count reaches `n`, at most `withinMs`; answers the count then. */
    async until(n: number, withinMs = 2000) {
      const deadline = Date.now() + withinMs;
      while (count < n && Date.now() < deadline)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, deadline - Date.now());
        });
      return count;
    },
  };
}

test.serial(
  'each committed step is announced to the listeners of its actor, from a writer on another connection; no one else',
  async (t) => {
    const writer = createActorStore({ redis: await redis.connect(), clock: createTestClock() });
    const changes = createActorChanges({ redis: redis.client });
    const [id, otherId] = [uid('c'), uid('c')];
    await writer.create(counterKind, id, {});
    await writer.create(counterKind, otherId, {});
    const mine = calls();
    const twice = calls();
    const others = calls();
    const stop = await changes.listen('counter', id, mine.onChange);
    const stopTwice = await changes.listen('counter', id, twice.onChange);
    const stopOthers = await changes.listen('counter', otherId, others.onChange);
    try {
      await writer.send(counterKind, id, { type: 'INC' });
      t.is(await mine.until(1), 1);
      t.is(await twice.until(1), 1, 'two listeners of one actor share its subscription, each is told');
      await writer.send(counterKind, id, { type: 'INC' });
      t.is(await mine.until(2), 2);
      stop();
      await writer.send(counterKind, id, { type: 'INC' });
      t.is(await twice.until(3), 3);
      t.is(mine.count, 2, 'a stopped listener is told nothing more');
      t.is(others.count, 0, "another actor's listener heard none of these steps");
    } finally {
      stopTwice();
      stopOthers();
      await changes.close();
    }
  },
);

test.serial(
  'after the subscriber connection is lost, every listener is told once it is back, and later steps arrive again',
  async (t) => {
    const writer = createActorStore({ redis: await redis.connect(), clock: createTestClock() });
    const changes = createActorChanges({ redis: redis.client });
    const id = uid('c');
    await writer.create(counterKind, id, {});
    const heard = calls();
    const stop = await changes.listen('counter', id, heard.onChange);
    try {
      await redis.client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      t.is(await heard.until(1, 5000), 1, 'told when the subscriber is back');
      await writer.send(counterKind, id, { type: 'INC' });
      t.is(await heard.until(2), 2, 'subscribed again');
    } finally {
      stop();
      await changes.close();
    }
  },
);
