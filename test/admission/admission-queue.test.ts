import test from 'ava';
import {
  createAdmissionQueue,
  type Admission,
  type AdmissionQueueOptions,
  type AdmissionTicket,
  type AdmissionTimers,
} from '../../src/admission/admission-queue.js';

/** Timers on a clock the test moves: `advance` runs every timer that falls due, in order. */
function manualTimers(): AdmissionTimers & { advance(ms: number): Promise<void> } {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(h) {
      timers.delete(h as number);
    },
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...timers.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
        await settle();
      }
      now = end;
      await settle();
    },
  };
}

/** Lets promise callbacks run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** A queue on manual timers and an event loop as busy as `busy` says, and a helper tracking each entry's outcome. */
function queueOf(o: Omit<AdmissionQueueOptions, 'timers' | 'busy'>, busy: { share: number } = { share: 0.9 }) {
  const timers = manualTimers();
  const queue = createAdmissionQueue({ ...o, timers, busy: () => busy.share });
  const enter = (opts: { budgetMs?: number; signal?: AbortSignal } = {}) => {
    const entry: { outcome?: Admission } = {};
    void queue.enter(opts).then((a) => {
      entry.outcome = a;
    });
    return entry;
  };
  const ticket = (e: { outcome?: Admission }): AdmissionTicket => {
    if (!e.outcome?.admitted) throw new Error(`not admitted: ${JSON.stringify(e.outcome)}`);
    return e.outcome.ticket;
  };
  return { queue, timers, enter, ticket, busy };
}

/** Teaches a queue how long a request takes: `n` requests of `ms` each, one at a time. */
async function teach(q: ReturnType<typeof queueOf>, ms: number, n = 20) {
  for (let i = 0; i < n; i++) {
    const e = q.enter();
    await settle();
    await q.timers.advance(ms);
    q.ticket(e).leave();
  }
}

/**
 * Runs `clients` closed-loop clients for `ms` of manual time: each request takes `workMs` once started, and a client
 * sends again as soon as it is answered (admitted and done, or refused). Counts, for the second half of the run, the
 * waits of admitted requests, the refusals and the requests done.
 */
async function closedLoop(q: ReturnType<typeof queueOf>, clients: number, ms: number, workMs: number) {
  type Slot = { e: ReturnType<typeof q.enter>; startedAt?: number };
  let slots: Slot[] = Array.from({ length: clients }, () => ({ e: q.enter() }));
  const late = { waits: [] as number[], refused: 0, done: 0 };
  for (let step = 1; step <= ms; step++) {
    await q.timers.advance(1);
    const counting = step > ms / 2;
    slots = slots.map((s) => {
      const o = s.e.outcome;
      if (!o) return s;
      if (!o.admitted) {
        if (counting) late.refused++;
        return { e: q.enter() };
      }
      const startedAt = s.startedAt ?? q.timers.now() - 1;
      if (q.timers.now() - startedAt < workMs) return { ...s, startedAt };
      if (counting) {
        late.waits.push(o.ticket.waitedMs);
        late.done++;
      }
      o.ticket.leave();
      return { e: q.enter() };
    });
    await settle();
  }
  late.waits.sort((a, b) => a - b);
  return { ...late, p99: late.waits[Math.floor(late.waits.length * 0.99)] ?? 0, slots };
}

/**
 * Lets the admitted requests of `burst` finish one every `everyMs`, in order, until none is left to finish (bounded);
 * `beforeEach(step)` runs after each advance of time. Answers how many finished.
 */
async function finishOneAtATime(
  q: ReturnType<typeof queueOf>,
  burst: { outcome?: Admission }[],
  everyMs: number,
  beforeEach?: (step: number) => void,
) {
  const left = new Set<object>();
  let done = 0;
  for (let step = 0; step < 200 && done < burst.length; step++) {
    await q.timers.advance(everyMs);
    beforeEach?.(step);
    const next = burst.find((e) => e.outcome?.admitted && !left.has(e));
    if (next) {
      left.add(next);
      q.ticket(next).leave();
      done++;
    }
    await settle();
  }
  return done;
}

/** The refusals among `entries`' outcomes. */
const refusals = (entries: { outcome?: Admission }[]) =>
  entries.filter((e) => e.outcome && !e.outcome.admitted).map((e) => e.outcome);

/** Lets every admitted request of a closed loop finish and leave (bounded). */
async function drain(q: ReturnType<typeof queueOf>, slots: { e: { outcome?: Admission } }[]) {
  for (let i = 0; i < 300 && (q.queue.inFlight > 0 || q.queue.waiting > 0); i++) {
    for (const s of slots) if (s.e.outcome?.admitted) s.e.outcome.ticket.leave();
    await q.timers.advance(10);
  }
}

test('work within the limit starts at once; beyond it, it waits its turn in order and starts as work leaves', async (t) => {
  const q = queueOf({ limit: 2 });
  const a = q.enter();
  const b = q.enter();
  const c = q.enter();
  const d = q.enter();
  await settle();
  t.true(a.outcome?.admitted);
  t.true(b.outcome?.admitted);
  t.is(c.outcome, undefined, 'c waits');
  t.is(d.outcome, undefined, 'd waits');
  t.is(q.queue.waiting, 2);
  await q.timers.advance(30);
  q.ticket(a).leave();
  await settle();
  t.true(c.outcome?.admitted, 'the first waiter starts first');
  t.is(d.outcome, undefined);
  t.is(q.ticket(c).waitedMs, 30);
  q.ticket(b).leave();
  await settle();
  t.true(d.outcome?.admitted);
  t.is(q.queue.waiting, 0);
  t.is(q.queue.inFlight, 2);
  q.ticket(c).leave();
  q.ticket(c).leave();
  t.is(q.queue.inFlight, 1, 'leaving twice frees one place');
});

test('a waiter that cannot start within its budget is refused when the budget passes; the caller deadline shortens it', async (t) => {
  const q = queueOf({ limit: 1, maxWaitMs: 1000 });
  const running = q.enter();
  await settle();
  const waiter = q.enter();
  const hurried = q.enter({ budgetMs: 200 });
  await q.timers.advance(199);
  t.is(hurried.outcome, undefined);
  await q.timers.advance(1);
  t.deepEqual(hurried.outcome, { admitted: false, reason: 'wait_budget' });
  await q.timers.advance(799);
  t.is(waiter.outcome, undefined);
  await q.timers.advance(1);
  t.deepEqual(waiter.outcome, { admitted: false, reason: 'wait_budget' });
  q.ticket(running).leave();
  t.is(q.queue.inFlight, 0);
  t.is(q.queue.waiting, 0);
  const after = q.enter();
  await settle();
  t.true(after.outcome?.admitted, 'nothing stays behind');
});

test('a queue that moves however slowly is waited on up to the longest wait (10 s by default), never past the caller deadline', async (t) => {
  const q = queueOf({ limit: 1 });
  const first = q.enter();
  await settle();
  // Ahead of the last one: requests of 2 s each, one at a time; it starts after 8 s.
  const ahead = [q.enter(), q.enter(), q.enter()];
  const last = q.enter();
  const hurried = q.enter({ budgetMs: 3000 });
  let running = first;
  for (const next of [...ahead, last]) {
    await q.timers.advance(2000);
    q.ticket(running).leave();
    await settle();
    t.true(next.outcome?.admitted, 'each starts in turn');
    running = next;
  }
  t.is(q.ticket(last).waitedMs, 8000);
  t.deepEqual(hurried.outcome, { admitted: false, reason: 'wait_budget' }, 'its own deadline is firm');
  // Behind a request that finishes only every 900 ms, a waiter queued behind 12 others is refused at 10 s.
  const slow = queueOf({ limit: 1 });
  let current = slow.enter();
  await settle();
  const line = Array.from({ length: 12 }, () => slow.enter());
  const tail = slow.enter();
  for (let i = 0; i < 11; i++) {
    await slow.timers.advance(900);
    slow.ticket(current).leave();
    await settle();
    current = line[i]!;
  }
  t.is(tail.outcome, undefined, 'still waiting at 9.9 s');
  await slow.timers.advance(100);
  t.deepEqual(tail.outcome, { admitted: false, reason: 'wait_budget' });
});

test('a door that finishes nothing (a hung store) refuses a waiter at the longest wait, on an idle or a saturated loop', async (t) => {
  for (const share of [0.1, 1]) {
    const q = queueOf({ limit: 1 }, { share });
    const hog = q.enter();
    await settle();
    const patient = q.enter();
    await q.timers.advance(9999);
    t.is(patient.outcome, undefined, `busy ${share}: waiting at 9.999 s`);
    await q.timers.advance(1);
    t.deepEqual(patient.outcome, { admitted: false, reason: 'wait_budget' });
    q.ticket(hog).leave();
  }
});

test('50 concurrent creates on a process short of CPU, its loop idle while PostgreSQL is starved: no request finishes for 1.5 s at a time, none is refused', async (t) => {
  // Production defaults (limit 64, adapting from 16; longest wait 10 s). The gateway's loop has room (it waits on a
  // PostgreSQL starved of CPU by a loaded host), so the limit may grow; what runs finishes only 1.5 s after it starts.
  const q = queueOf({ limit: 64 }, { share: 0.5 });
  await teach(q, 100);
  const burst = Array.from({ length: 50 }, () => ({ e: q.enter(), startedAt: undefined as number | undefined }));
  await settle();
  let done = 0;
  for (let step = 0; step < 200 && done < 50; step++) {
    await q.timers.advance(100);
    for (const b of burst) {
      if (!b.e.outcome?.admitted) continue;
      b.startedAt ??= q.timers.now() - 100;
      if (b.startedAt >= 0 && q.timers.now() - b.startedAt >= 1500) {
        b.startedAt = -Infinity;
        q.ticket(b.e).leave();
        done++;
      }
    }
    await settle();
  }
  const refused = burst.filter((b) => b.e.outcome && !b.e.outcome.admitted).map((b) => b.e.outcome);
  t.deepEqual(refused, [], 'none refused');
  t.is(done, 50);
});

test('a burst of 50 draining one at a time on a saturated loop (creates taking one slot lock in turn) is not overload: none refused', async (t) => {
  const q = queueOf({ limit: 64 }, { share: 1 });
  await teach(q, 100);
  // The loop is saturated, so 16 run at once; they finish one every 150 ms, and nothing new arrives meanwhile.
  const burst = Array.from({ length: 50 }, () => q.enter());
  await settle();
  t.is(await finishOneAtATime(q, burst, 150), 50);
  t.deepEqual(refusals(burst), [], 'none refused');
  t.false(q.queue.overloaded);
});

test('two bursts of 25 that overlap on a saturated loop (the second lands as the first drains) are not overload: none refused', async (t) => {
  // Two test files' worth of clients on one process sharing two busy cores: 25 creates, then 300 ms later 25 confirms,
  // finishing one every 60 ms. The second burst refills the queue once; nothing arrives after it.
  const q = queueOf({ limit: 64 }, { share: 1 });
  await teach(q, 100);
  const burst = Array.from({ length: 25 }, () => q.enter());
  await settle();
  const done = await finishOneAtATime(q, burst, 60, (step) => {
    if (step === 4) burst.push(...Array.from({ length: 25 }, () => q.enter()));
  });
  t.is(done, 50);
  t.deepEqual(refusals(burst), [], 'none refused');
  t.false(q.queue.overloaded);
});

test('a full queue refuses at once; so does work whose predicted wait on a saturated loop exceeds its budget', async (t) => {
  const q = queueOf({ limit: 1, maxQueue: 2, maxWaitMs: 1000 });
  await teach(q, 100);
  const running = q.enter();
  const w1 = q.enter();
  const w2 = q.enter();
  const full = q.enter();
  await settle();
  t.deepEqual(full.outcome, { admitted: false, reason: 'queue_full' });
  t.is(w1.outcome, undefined);
  // On a saturated loop, two requests of ~100 ms each ahead of it, one at a time: it could not start within 150 ms.
  const q2 = queueOf({ limit: 1, maxWaitMs: 1000 }, { share: 1 });
  await teach(q2, 100);
  q2.enter();
  q2.enter();
  q2.enter();
  const late = q2.enter({ budgetMs: 150 });
  await settle();
  t.deepEqual(late.outcome, { admitted: false, reason: 'wait_budget' });
  q.ticket(running).leave();
  await settle();
  t.true(w1.outcome?.admitted);
  t.is(w2.outcome, undefined);
});

test('a burst of 100 at an idle door is admitted whole when it drains within the budget, even on a saturated loop', async (t) => {
  const q = queueOf({ limit: 16, maxWaitMs: 1000 }, { share: 1 });
  await teach(q, 2);
  // 100 requests of 7.5 ms of CPU each on one saturated event loop, which shares its time among those running (the
  // limit shrinks meanwhile, which changes nothing on a saturated loop): the burst takes about 750 ms of CPU.
  const burst = Array.from({ length: 100 }, () => ({ e: q.enter(), cpu: 0 }));
  await settle();
  let done = 0;
  for (let step = 0; step < 3000 && done < 100; step++) {
    await q.timers.advance(1);
    const running = burst.filter((b) => b.e.outcome?.admitted && b.cpu < 7.5);
    for (const b of running) {
      b.cpu += 1 / running.length;
      if (b.cpu >= 7.5) {
        done++;
        q.ticket(b.e).leave();
      }
    }
    await settle();
  }
  t.is(burst.filter((b) => b.e.outcome && !b.e.outcome.admitted).length, 0, 'none refused');
  t.is(done, 100);
  t.false(q.queue.overloaded);
});

test('sustained overload on a saturated loop: waits stay near the target, the rest is refused at once, and the overload ends by itself when load falls', async (t) => {
  const q = queueOf({ limit: 64, maxWaitMs: 1000 }, { share: 1 });
  await teach(q, 20);
  // 128 closed-loop clients, each request 20 ms; the saturated loop brings the limit down to 16 at once.
  const run = await closedLoop(q, 128, 3000, 20);
  t.is(q.queue.limit, 16, 'a saturated loop runs the fewest at once');
  t.true(q.queue.overloaded, 'overloaded while the load stands');
  t.true(run.refused > 0, 'work beyond what can start in time is refused');
  t.true(run.p99 <= 80, `admitted work waits about the 50 ms target, p99 ${run.p99} ms`);
  // Sixteen at a time for 20 ms: 800 a second, 1,200 in 1.5 s, is the most; refusing must not cost that.
  t.true(run.done >= 1150, `throughput kept: ${run.done} in the last 1.5 s`);
  await drain(q, run.slots);
  await q.timers.advance(1600);
  t.false(q.queue.overloaded, 'no state outlives the load');
  const next = q.enter();
  await settle();
  t.true(next.outcome?.admitted, 'admitted once the load has fallen');
});

test('a standing queue while the loop has room is not overload: the limit grows until the queue is gone', async (t) => {
  const q = queueOf({ limit: 64, maxWaitMs: 1000 }, { share: 0.3 });
  await teach(q, 50);
  // 40 clients of requests that wait 50 ms on a store: far more than the initial 16 run at once, none refused.
  const run = await closedLoop(q, 40, 3000, 50);
  t.is(run.refused, 0);
  t.true(q.queue.limit >= 40, `the limit grew to ${q.queue.limit}`);
  t.is(run.p99, 0, 'once grown, nothing waits');
  t.false(q.queue.overloaded);
  await drain(q, run.slots);
});

test('a standing queue while the loop has room but the limit is at its maximum is overload: the rest is refused at once, waits stay near the target', async (t) => {
  // 192 closed-loop clients of requests that wait 100 ms on PostgreSQL (short of CPU): the loop has room, so the limit
  // grows to its maximum, and the 128 beyond it would wait two service times each for nothing.
  const q = queueOf({ limit: 64 }, { share: 0.3 });
  await teach(q, 100);
  const run = await closedLoop(q, 192, 4000, 100);
  t.is(q.queue.limit, 64, 'the limit grew to its maximum');
  t.true(q.queue.overloaded, 'overloaded while the load stands');
  t.true(run.refused > 0, 'work beyond what can start near the target is refused');
  t.true(run.p99 <= 120, `admitted work waits about the 50 ms target, p99 ${run.p99} ms`);
  // 64 at a time for 100 ms: 640 a second, 1,280 in the counted 2 s, is the most; refusing must not cost that.
  t.true(run.done >= 1200, `throughput kept: ${run.done} in the last 2 s`);
  await drain(q, run.slots);
  await q.timers.advance(1600);
  t.false(q.queue.overloaded, 'no state outlives the load');
});

test('work that waits on a lock (the loop has room) is not refused by a prediction: the limit grows and it starts in time', async (t) => {
  const q = queueOf({ limit: 64, maxWaitMs: 1000 }, { share: 0.2 });
  await teach(q, 300);
  // 50 requests at once for one slot: they take turns on a lock, one every 20 ms, so the average time is long.
  const burst = Array.from({ length: 50 }, () => q.enter());
  await settle();
  t.is(burst.filter((e) => e.outcome && !e.outcome.admitted).length, 0, 'none refused at once');
  let done = 0;
  for (let step = 0; step < 100 && done < 50; step++) {
    await q.timers.advance(20);
    const next = burst.find((e) => e.outcome?.admitted && !(e as { left?: boolean }).left);
    if (next) {
      (next as { left?: boolean }).left = true;
      q.ticket(next).leave();
      done++;
    }
    await settle();
  }
  t.is(done, 50);
  t.is(burst.filter((e) => !e.outcome?.admitted).length, 0, 'every one started within its budget');
});

test('a waiter that goes away leaves the queue and the one behind it moves up', async (t) => {
  const q = queueOf({ limit: 1 });
  const running = q.enter();
  const gone = new AbortController();
  const leaver = q.enter({ signal: gone.signal });
  const next = q.enter();
  await settle();
  gone.abort();
  await settle();
  t.deepEqual(leaver.outcome, { admitted: false, reason: 'cancelled' });
  t.is(q.queue.waiting, 1);
  q.ticket(running).leave();
  await settle();
  t.true(next.outcome?.admitted);
});

test('a limit of 0 admits everything at once', async (t) => {
  const q = queueOf({ limit: 0 });
  const all = Array.from({ length: 500 }, () => q.enter());
  await settle();
  t.is(all.filter((e) => e.outcome?.admitted).length, 500);
});
