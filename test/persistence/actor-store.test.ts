import test from 'ava';
import { randomBytes } from 'node:crypto';
import { assign, setup } from 'xstate';
import { holdActorKind, resolutionActorKind } from '../../machines/machine-versions.js';
import {
  ActorAlreadyExistsError,
  ActorNotFoundError,
  ConcurrencyConflictError,
  MachineVersionError,
} from '../../src/persistence/actor-store-errors.js';
import { createActorStore, type ActorKind, type PersistedSnapshot } from '../../src/persistence/actor-store.js';
import { createDurableTimers } from '../../src/persistence/durable-timers.js';
import { actorKeys } from '../../src/persistence/redis-keys.js';
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
const T0 = '2026-03-02T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const counterMachine = setup({
  types: { context: {} as { count: number; label?: string }, events: {} as { type: 'INC' } | { type: 'NOOP' } },
  actions: { increment: assign({ count: ({ context }) => context.count + 1 }) },
}).createMachine({ id: 'counter', context: { count: 0 }, on: { INC: { actions: 'increment' } } });
const counterKind: ActorKind<typeof counterMachine> = { name: 'counter', machine: counterMachine, version: 1 };

const holdInput = (holdId: string) => ({
  holdId,
  resolutionId: 'res_1',
  optionId: 'opt_1',
  at: T0,
  expiresAt: at(120),
});

test('an actor survives a restart: a new store on a new connection continues it', async (t) => {
  const clock = createTestClock(T0);
  const id = uid('res');
  const first = createActorStore({ redis: redis.client, clock });
  await first.create(resolutionActorKind, id, {
    resolutionId: id,
    organizationId: 'org_1',
    outcome: 'resolved',
    expiresAt: at(300),
  });
  await first.send(resolutionActorKind, id, { type: 'HOLD_STARTED', holdId: 'h1', at: at(10) });

  const second = createActorStore({ redis: await redis.connect(), clock });
  const loaded = await second.load(resolutionActorKind, id);
  t.is(loaded?.snapshot.value, 'resolved');
  t.is(loaded?.snapshot.context.activeHoldId, 'h1');
  t.is(loaded?.revision, 2);
  const r = await second.send(resolutionActorKind, id, { type: 'HOLD_ENDED', holdId: 'h1', at: at(400) });
  t.true(r.changed);
  t.is(r.revision, 3);
  const done = await second.send(resolutionActorKind, id, { type: 'EXPIRE', at: at(400) });
  t.is(done.after.value, 'expired');
  t.deepEqual(
    (await first.history(resolutionActorKind, id)).map((h) => [h.event, h.from, h.to, h.revision]),
    [
      ['create', null, 'resolved', 1],
      ['HOLD_STARTED', 'resolved', 'resolved', 2],
      ['HOLD_ENDED', 'resolved', 'resolved', 3],
      ['EXPIRE', 'resolved', 'expired', 4],
    ],
  );
});

test('create fails when the actor exists; send and load on a missing actor', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('hold');
  await store.create(holdActorKind, id, holdInput(id));
  const err = await t.throwsAsync(store.create(holdActorKind, id, holdInput(id)), {
    instanceOf: ActorAlreadyExistsError,
  });
  t.is(err?.id, id);
  await t.throwsAsync(store.send(holdActorKind, uid('hold'), { type: 'RELEASE', at: at(1) }), {
    instanceOf: ActorNotFoundError,
  });
  t.is(await store.load(holdActorKind, uid('hold')), undefined);
});

test('an id no actor can have (whitespace, braces, "|", empty) names none: reads find nothing, a send is not found', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  for (const id of ['a b', '\ufeff', 'x{y}', 'a|b', '', 'p\t']) {
    t.is(await store.load(holdActorKind, id), undefined, JSON.stringify(id));
    t.is(await store.getSnapshot(holdActorKind, id), undefined);
    t.is(await store.revision(holdActorKind, id), undefined);
    t.deepEqual(await store.history(holdActorKind, id), []);
    await t.throwsAsync(store.send(holdActorKind, id, { type: 'RELEASE', at: at(1) }), {
      instanceOf: ActorNotFoundError,
    });
  }
  t.throws(() => actorKeys('hold', 'a b'), undefined, 'making keys for such an id is still refused');
});

test('20 concurrent releases make one transition; the others see it released', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('hold');
  await store.create(holdActorKind, id, holdInput(id));
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store.send(holdActorKind, id, { type: 'RELEASE', at: at(10 + i) })),
  );
  t.is(results.filter((r) => r.changed).length, 1);
  t.true(results.every((r) => r.after.value === 'released'));
  const winner = results.find((r) => r.changed)!;
  const loaded = await store.load(holdActorKind, id);
  t.is(loaded?.revision, 2);
  t.is(loaded?.snapshot.context.releasedAt, winner.after.context.releasedAt);
  t.is((await store.history(holdActorKind, id)).length, 2);
});

test('concurrent changing sends all land with retries, each exactly once', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0), maxAttempts: 100 });
  const id = uid('ctr');
  await store.create(counterKind, id, undefined as never);
  await Promise.all(Array.from({ length: 20 }, () => store.send(counterKind, id, { type: 'INC' })));
  const loaded = await store.load(counterKind, id);
  t.is(loaded?.snapshot.context.count, 20);
  t.is(loaded?.revision, 21);
});

test('without retries, losers get ConcurrencyConflictError and only winners count', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0), maxAttempts: 1 });
  const id = uid('ctr');
  await store.create(counterKind, id, undefined as never);
  const settled = await Promise.allSettled(
    Array.from({ length: 20 }, () => store.send(counterKind, id, { type: 'INC' })),
  );
  const won = settled.filter((s) => s.status === 'fulfilled').length;
  const conflicts = settled.filter(
    (s) => s.status === 'rejected' && s.reason instanceof ConcurrencyConflictError,
  ).length;
  t.true(won >= 1);
  t.true(conflicts >= 1);
  t.is(won + conflicts, 20);
  t.is((await store.getSnapshot(counterKind, id))?.context.count, won);
});

test('an event that changes nothing writes nothing', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('ctr');
  await store.create(counterKind, id, undefined as never);
  let calls = 0;
  const r = await store.send(
    counterKind,
    id,
    { type: 'NOOP' },
    {
      onTransition: () => {
        calls++;
        return {};
      },
    },
  );
  t.false(r.changed);
  t.is(r.revision, 1);
  t.is(calls, 0);
  t.is((await store.history(counterKind, id)).length, 1);
});

test('a final actor ignores events without a write', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('hold');
  await store.create(holdActorKind, id, holdInput(id));
  await store.send(holdActorKind, id, { type: 'EXPIRE', at: at(120) });
  const r = await store.send(holdActorKind, id, { type: 'RELEASE', at: at(130) });
  t.false(r.changed);
  t.is(r.after.value, 'expired');
  t.is(r.revision, 2);
});

test('history keeps the last historyLimit entries', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0), historyLimit: 5 });
  const id = uid('ctr');
  await store.create(counterKind, id, undefined as never);
  for (let i = 0; i < 12; i++) await store.send(counterKind, id, { type: 'INC' });
  const h = await store.history(counterKind, id);
  t.deepEqual(
    h.map((e) => e.revision),
    [9, 10, 11, 12, 13],
  );
});

test('effects: timers go to the actor zset and the global index, outbox rows are drained once', async (t) => {
  const timers = createDurableTimers({ redis: redis.client });
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0), timers });
  const id = uid('hold');
  await store.create(holdActorKind, id, holdInput(id), {
    timers: [{ name: 'expire', dueAt: new Date(at(120)) }],
    outbox: [{ type: 'option.held', holdId: id }],
  });
  await store.send(
    holdActorKind,
    id,
    { type: 'RELEASE', at: at(5) },
    {
      onTransition: (before, after) => ({ outbox: [{ type: 'option.released', from: before.value, to: after.value }] }),
    },
  );
  t.is((await timers.dueAt('hold', id, 'expire'))?.toISOString(), at(120));
  t.is(await redis.client.zScore(actorKeys('hold', id).timers, 'expire'), Date.parse(at(120)));

  t.true((await store.pendingOutboxes(holdActorKind, 1000)).includes(id));
  const delivered: unknown[] = [];
  t.is(
    await store.drainOutbox(holdActorKind, id, async (rows) => {
      delivered.push(...rows);
    }),
    2,
  );
  t.deepEqual(delivered, [
    { type: 'option.held', holdId: id },
    { type: 'option.released', from: 'active', to: 'released' },
  ]);
  t.is(
    await store.drainOutbox(holdActorKind, id, async () => {
      t.fail('nothing left');
    }),
    0,
  );
  t.false((await store.pendingOutboxes(holdActorKind, 1000)).includes(id));

  await timers.cancel('hold', id, 'expire');
  t.is(await store.resyncTimers(holdActorKind, id), 1);
  t.is((await timers.dueAt('hold', id, 'expire'))?.toISOString(), at(120));
});

test('a failing outbox delivery keeps the rows', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('hold');
  await store.create(holdActorKind, id, holdInput(id), { outbox: [{ n: 1 }] });
  await t.throwsAsync(
    store.drainOutbox(holdActorKind, id, async () => {
      throw new Error('down');
    }),
  );
  t.is(await store.drainOutbox(holdActorKind, id, async () => undefined), 1);
});

test('expireAt puts a TTL on every actor key; a past expireAt removes the actor', async (t) => {
  const clock = createTestClock(T0);
  const store = createActorStore({ redis: redis.client, clock });
  const id = uid('ctr');
  // expireAt is on the store's clock; Redis keeps the same distance on its own clock.
  const expireAt = new Date(clock().getTime() + 24 * 3600_000);
  await store.create(counterKind, id, undefined as never, {
    expireAt,
    timers: [{ name: 'x', dueAt: new Date() }],
    outbox: [{ a: 1 }],
  });
  await store.send(counterKind, id, { type: 'INC' });
  for (const key of Object.values(actorKeys('counter', id))) {
    const ttl = await redis.client.pTTL(key);
    t.true(ttl > 23 * 3600_000 && ttl <= 24 * 3600_000, `${key} ttl ${ttl}`);
  }
  await store.send(counterKind, id, { type: 'INC' }, { expireAt: new Date(clock().getTime() - 1000) });
  t.is(await store.load(counterKind, id), undefined);
});

test('an old snapshot is migrated on load and written with the new version on change', async (t) => {
  const store = createActorStore({ redis: redis.client, clock: createTestClock(T0) });
  const id = uid('ctr');
  await store.create(counterKind, id, undefined as never);
  await store.send(counterKind, id, { type: 'INC' });

  const seen: number[] = [];
  const v2: ActorKind<typeof counterMachine> = {
    ...counterKind,
    version: 2,
    migrate: (s: PersistedSnapshot, from: number) => {
      seen.push(from);
      return { ...s, context: { ...(s.context as object), label: 'migrated' } };
    },
  };
  const loaded = await store.load(v2, id);
  t.is(loaded?.machineVersion, 1);
  t.is(loaded?.snapshot.context.label, 'migrated');
  t.is(loaded?.snapshot.context.count, 1);
  await store.send(v2, id, { type: 'INC' });
  t.is(await redis.client.hGet(actorKeys('counter', id).state, 'machineVersion'), '2');
  t.deepEqual(seen, [1, 1]);

  await t.throwsAsync(store.load(counterKind, id), { instanceOf: MachineVersionError }, 'v1 code cannot read v2');
  await t.throwsAsync(
    store.load({ ...v2, version: 3, migrate: undefined }, id),
    { instanceOf: MachineVersionError },
    'no migration',
  );
});
