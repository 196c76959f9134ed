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

/** A queue on manual timers, and a helper that tracks each entry's outcome. */
function queueOf(o: Omit<AdmissionQueueOptions, 'timers'>) {
  const timers = manualTimers();
  const queue = createAdmissionQueue({ ...o, timers });
  const enter = (kind = 'read', opts: { budgetMs?: number; signal?: AbortSignal } = {}) => {
    const entry: { outcome?: Admission } = {};
    void queue.enter(kind, opts).then((a) => {
      entry.outcome = a;
    });
    return entry;
  };
  const ticket = (e: { outcome?: Admission }): AdmissionTicket => {
    if (!e.outcome?.admitted) throw new Error(`not admitted: ${JSON.stringify(e.outcome)}`);
    return e.outcome.ticket;
  };
  return { queue, timers, enter, ticket };
}

/** Teaches a queue how long work of `kind` takes: `n` pieces of `ms` each, one at a time. */
async function teach(q: ReturnType<typeof queueOf>, kind: string, ms: number, n = 12) {
  for (let i = 0; i < n; i++) {
    const e = q.enter(kind);
    await settle();
    await q.timers.advance(ms);
    q.ticket(e).leave();
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
  t.is(q.queue.inFlight, 1, 'leaving twice gives the units back once');
});

test('a waiter that cannot start within its budget is refused when the budget passes; the caller deadline shortens it', async (t) => {
  const q = queueOf({ limit: 1, maxWaitMs: 1000 });
  const running = q.enter();
  await settle();
  const waiter = q.enter();
  const hurried = q.enter('read', { budgetMs: 200 });
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

test('a full queue refuses at once; so does work whose predicted wait exceeds its budget', async (t) => {
  const q = queueOf({ limit: 1, maxQueue: 2, maxWaitMs: 1000 });
  await teach(q, 'read', 100);
  const running = q.enter();
  const w1 = q.enter();
  const w2 = q.enter();
  const full = q.enter();
  await settle();
  t.deepEqual(full.outcome, { admitted: false, reason: 'queue_full' });
  t.is(w1.outcome, undefined);
  // Two queued pieces of ~100 ms each ahead of it, one at a time: it could not start within 150 ms.
  const q2 = queueOf({ limit: 1, maxWaitMs: 1000 });
  await teach(q2, 'read', 100);
  q2.enter();
  q2.enter();
  q2.enter();
  const late = q2.enter('read', { budgetMs: 150 });
  await settle();
  t.deepEqual(late.outcome, { admitted: false, reason: 'wait_budget' });
  q.ticket(running).leave();
  await settle();
  t.true(w1.outcome?.admitted);
  t.is(w2.outcome, undefined);
});

test('a burst of 100 at an idle door is admitted whole when it drains within the budget', async (t) => {
  const q = queueOf({ limit: 16, maxWaitMs: 1000 });
  await teach(q, 'read', 2);
  // Each piece takes 120 ms with 16 running at once: the 100 drain in about 750 ms.
  const burst = Array.from({ length: 100 }, () => q.enter());
  await settle();
  const done = new Set<number>();
  for (let step = 0; step < 200 && done.size < 100; step++) {
    await q.timers.advance(120);
    burst.forEach((e, i) => {
      if (e.outcome?.admitted && !done.has(i)) {
        done.add(i);
        e.outcome.ticket.leave();
      }
    });
    await settle();
  }
  t.is(burst.filter((e) => e.outcome && !e.outcome.admitted).length, 0, 'none refused');
  t.is(done.size, 100);
  t.false(q.queue.overloaded);
});

test('a burst too slow to drain within half a second is still not cut while it drains: no overload, nothing refused', async (t) => {
  const q = queueOf({ limit: 4, maxWaitMs: 5000 });
  await teach(q, 'work', 40, 20);
  // 40 pieces of 40 ms, four at a time: about 400 ms of waiting for the last, far past the 80 ms target.
  const burst = Array.from({ length: 40 }, () => q.enter('work'));
  await settle();
  const done = new Set<number>();
  for (let step = 0; step < 100 && done.size < 40; step++) {
    await q.timers.advance(40);
    burst.forEach((e, i) => {
      if (e.outcome?.admitted && !done.has(i)) {
        done.add(i);
        e.outcome.ticket.leave();
      }
    });
    await settle();
  }
  t.is(burst.filter((e) => e.outcome && !e.outcome.admitted).length, 0);
  t.is(done.size, 40);
  t.false(q.queue.overloaded);
});

test('sustained overload: waits stay near the target, arrivals beyond it are refused at once, and the door recovers when load falls', async (t) => {
  const q = queueOf({ limit: 4, maxWaitMs: 1000 });
  await teach(q, 'work', 10, 20);
  // Closed-loop clients, 4x what runs at once: each piece takes 10 ms; a client sends again as soon as it is answered
  // (admitted or refused), which is the harshest load: refusals must stay cheap and not let the queue grow.
  type Slot = { e: ReturnType<typeof q.enter>; startedAt?: number };
  let slots: Slot[] = Array.from({ length: 16 }, () => ({ e: q.enter('work') }));
  const late = { waits: [] as number[], refused: 0, done: 0 };
  for (let ms = 1; ms <= 2000; ms++) {
    await q.timers.advance(1);
    const counting = ms > 1000;
    slots = slots.map((s) => {
      const o = s.e.outcome;
      if (!o) return s;
      if (!o.admitted) {
        if (counting) late.refused++;
        return { e: q.enter('work') };
      }
      const startedAt = s.startedAt ?? q.timers.now() - 1;
      if (q.timers.now() - startedAt < 10) return { ...s, startedAt };
      if (counting) {
        late.waits.push(o.ticket.waitedMs);
        late.done++;
      }
      o.ticket.leave();
      return { e: q.enter('work') };
    });
    await settle();
  }
  t.true(q.queue.overloaded, 'overloaded while the load stands');
  t.true(late.refused > 0, 'work beyond what can start in time is refused');
  late.waits.sort((a, b) => a - b);
  const p99 = late.waits[Math.floor(late.waits.length * 0.99)]!;
  t.true(p99 <= 30, `admitted work waits about the target (twice the 10 ms service time), p99 ${p99} ms`);
  // Four run at once for 10 ms each: 400 a second is the most the door can do; refusing must not cost that.
  t.true(late.done >= 360, `throughput kept: ${late.done} in the last second`);
  // The load ends: what runs finishes, and the next request starts at once and waits for nothing.
  for (let i = 0; i < 100 && (q.queue.inFlight > 0 || q.queue.waiting > 0); i++) {
    for (const s of slots) if (s.e.outcome?.admitted) s.e.outcome.ticket.leave();
    await q.timers.advance(10);
  }
  // Without any new request, the overload has ended by itself 1.5 s after its last sign.
  await q.timers.advance(1600);
  t.false(q.queue.overloaded, 'no state outlives the load');
  const next = q.enter('work');
  await settle();
  t.true(next.outcome?.admitted, 'admitted once the load has fallen');
});

test('a waiter that goes away leaves the queue and the one behind it moves up', async (t) => {
  const q = queueOf({ limit: 1 });
  const running = q.enter();
  const gone = new AbortController();
  const leaver = q.enter('read', { signal: gone.signal });
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

test('costs are learned from service time: costly work takes more of the limit, at most a quarter of it', async (t) => {
  const q = queueOf({ limit: 16 });
  t.is(q.queue.costs.costOf('resolution'), 1, 'unmeasured work costs one unit');
  await teach(q, 'read', 2);
  await teach(q, 'resolution', 8);
  t.is(q.queue.costs.costOf('read'), 1);
  t.is(q.queue.costs.costOf('resolution'), 4);
  await teach(q, 'report', 200);
  t.is(q.queue.costs.costOf('report'), 4, 'capped at a quarter of the limit');
  // Four resolutions fill the limit; a fifth waits while reads still fit beside... none: the limit is spent.
  const r = Array.from({ length: 5 }, () => q.enter('resolution'));
  await settle();
  t.is(r.filter((e) => e.outcome?.admitted).length, 4);
  t.is(q.queue.inFlight, 16);
});

test('a limit of 0 admits everything at once', async (t) => {
  const q = queueOf({ limit: 0 });
  const all = Array.from({ length: 500 }, () => q.enter());
  await settle();
  t.is(all.filter((e) => e.outcome?.admitted).length, 500);
});
