import test from 'ava';
import { randomBytes } from 'node:crypto';
import { assign, setup } from 'xstate';
import { lifecycleStep } from '../../../src/application/lifecycle/lifecycle-step.js';
import type { ActorKind } from '../../../src/persistence/actor-store.js';
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { createTestClock } from '../../helpers/test-clock.js';

// lifecycleStep on real stores: one run of the machine's transition per step, its state written to the actor with the
// revision it was loaded at, the PostgreSQL consequences committed first and only for a change.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const uid = () => `ctr_${randomBytes(5).toString('hex')}`;

/** How many times the counter machine's transition ran its action (a pure transition runs it too). */
let runs = 0;
const counterMachine = setup({
  types: { context: {} as { count: number }, events: {} as { type: 'INC' } | { type: 'NOOP' } },
  actions: {
    increment: assign({
      count: ({ context }) => {
        runs++;
        return context.count + 1;
      },
    }),
  },
}).createMachine({ id: 'counter', context: { count: 0 }, on: { INC: { actions: 'increment' } } });
const counterKind: ActorKind<typeof counterMachine> = { name: 'counter', machine: counterMachine, version: 1 };

test.serial("one step runs the machine's transition once and writes its state at the next revision", async (t) => {
  const { actors, db } = svc.service.deps;
  const id = uid();
  await actors.create(counterKind, id, undefined);
  runs = 0;
  let committed = 0;
  const step = await lifecycleStep(
    { db, actors },
    counterKind,
    id,
    { type: 'INC' },
    {
      commit: async (tx) => {
        await tx.query('SELECT 1');
        committed++;
      },
    },
  );
  t.is(runs, 1, 'the transition ran once for the ledger and the actor alike');
  t.true(step.changed);
  t.is(step.after.context.count, 1);
  t.is(committed, 1);
  const loaded = await actors.load(counterKind, id);
  t.is(loaded?.revision, 2);
  t.is(loaded?.snapshot.context.count, 1);
  t.like((await actors.history(counterKind, id)).at(-1), { event: 'INC', revision: 2 });
});

test.serial('an event the machine ignores commits nothing and writes no revision', async (t) => {
  const { actors, db } = svc.service.deps;
  const id = uid();
  await actors.create(counterKind, id, undefined);
  let committed = 0;
  const step = await lifecycleStep(
    { db, actors },
    counterKind,
    id,
    { type: 'NOOP' },
    {
      commit: async () => {
        committed++;
      },
    },
  );
  t.false(step.changed);
  t.is(committed, 0);
  t.is(await actors.revision(counterKind, id), 1);
});

test.serial('a step another writer overtook sends its event to the newer state: both land', async (t) => {
  const { actors, db } = svc.service.deps;
  const id = uid();
  await actors.create(counterKind, id, undefined);
  // Another step writes the actor between this step's load and its write (here: inside its commit).
  const step = await lifecycleStep(
    { db, actors },
    counterKind,
    id,
    { type: 'INC' },
    {
      commit: async () => {
        await actors.send(counterKind, id, { type: 'INC' });
      },
    },
  );
  t.true(step.changed);
  t.is(step.after.context.count, 2);
  const loaded = await actors.load(counterKind, id);
  t.is(loaded?.revision, 3);
  t.is(loaded?.snapshot.context.count, 2);
});
