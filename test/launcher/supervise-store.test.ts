import test from 'ava';
import { superviseStore, type StoreChild } from '../../src/launcher/supervise-store.js';

/** A stand-in store child: `die()` ends it as a crash would, `stop()` as a clean shutdown. */
function fakeChild(id: number) {
  let end!: () => void;
  const exited = new Promise<void>((r) => {
    end = r;
  });
  const child = {
    id,
    stopped: false,
    exited,
    die: () => end(),
    stop: async () => {
      child.stopped = true;
      end();
    },
  };
  return child;
}
type Fake = ReturnType<typeof fakeChild> & StoreChild;

/** Waits (bounded) until `cond` holds. */
async function until(cond: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

test('a child that dies is started again, and again after a failed attempt; stop stops the current one and restarts no more', async (t) => {
  const children: Fake[] = [fakeChild(0)];
  let attempts = 0;
  const lines: string[] = [];
  const store = superviseStore<Fake>({
    name: 'fake',
    first: children[0]!,
    initialDelayMs: 1,
    restart: async () => {
      attempts++;
      // The first restart fails (as PostgreSQL does while orphaned backends still hold its shared memory).
      if (attempts === 1) throw new Error('shared memory block still in use');
      const c = fakeChild(children.length);
      children.push(c);
      return c;
    },
    log: (level, msg) => lines.push(`${level} ${msg}`),
  });
  t.is(store.current(), children[0]);
  children[0]!.die();
  await until(() => store.current()?.id === 1);
  t.is(attempts, 2);
  t.deepEqual(lines, [
    'warn fake exited unexpectedly; restarting it on the same data',
    'error fake restart failed; retrying',
    'info fake restarted',
  ]);

  children[1]!.die();
  await until(() => store.current()?.id === 2);
  await store.stop();
  t.true(children[2]!.stopped, 'stop shuts the running child down');
  t.is(store.current(), undefined);
  await new Promise((r) => setTimeout(r, 20));
  t.is(children.length, 3, 'a stopped child is not restarted');
});

test('no restart once the service is stopping, and stop during the backoff waits for nothing', async (t) => {
  const first = fakeChild(0) as Fake;
  let stopping = false;
  let restarts = 0;
  const store = superviseStore<Fake>({
    name: 'fake',
    first,
    initialDelayMs: 1,
    restart: async () => {
      restarts++;
      return fakeChild(1) as Fake;
    },
    log: () => undefined,
    shouldRestart: () => !stopping,
  });
  stopping = true;
  first.die();
  await new Promise((r) => setTimeout(r, 20));
  t.is(restarts, 0);
  await store.stop();

  const second = fakeChild(0) as Fake;
  const slow = superviseStore<Fake>({
    name: 'fake',
    first: second,
    initialDelayMs: 60_000,
    restart: async () => {
      restarts++;
      return fakeChild(1) as Fake;
    },
    log: () => undefined,
  });
  second.die();
  await new Promise((r) => setTimeout(r, 5));
  await slow.stop();
  t.is(restarts, 0, 'stop cut the backoff short without a restart');
});
