import test from 'ava';
import { createAdmissionGate } from '../../src/admission/admission-gate.js';

/** A gate on a clock the test moves. */
function gateAt(limit: number, burst: number) {
  let t = 0;
  const gate = createAdmissionGate({ limit, burst, now: () => t });
  return {
    gate,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/** Enters `n` times; answers how many were admitted. */
const enter = (gate: ReturnType<typeof createAdmissionGate>, n: number) =>
  Array.from({ length: n }, () => gate.tryEnter()).filter(Boolean).length;

test('without a burst the limit is a plain bound: refused at the limit, admitted again once one leaves', (t) => {
  const { gate } = gateAt(2, 2);
  t.is(enter(gate, 3), 2);
  t.is(gate.inFlight, 2);
  gate.leave();
  t.true(gate.tryEnter());
  t.false(gate.tryEnter());
});

test('a burst arriving at an idle gate is admitted whole, up to the burst bound', (t) => {
  const { gate } = gateAt(4, 10);
  t.is(enter(gate, 12), 10);
  for (let i = 0; i < 10; i++) gate.leave();
  t.is(gate.inFlight, 0);
  t.is(enter(gate, 10), 10);
});

test('work at or above the limit for 100 ms saturates the gate: only what fits is admitted until in flight stays below the limit for 1 s', (t) => {
  const { gate, advance } = gateAt(4, 64);
  t.is(enter(gate, 6), 6);
  advance(99);
  t.true(gate.tryEnter(), 'within the window a burst still grows');
  advance(1);
  t.false(gate.tryEnter(), 'a standing backlog: saturated');
  // Draining below the limit does not reopen the burst while the backlog refills: each completion lets one in.
  for (let i = 0; i < 4; i++) gate.leave();
  t.is(gate.inFlight, 3);
  t.true(gate.tryEnter());
  t.false(gate.tryEnter());
  advance(1000);
  t.false(gate.tryEnter());
  gate.leave();
  advance(999);
  t.true(gate.tryEnter());
  t.false(gate.tryEnter(), 'below the limit for less than a second');
  // Below the limit for a second: the backlog has drained, and a burst is admitted again.
  gate.leave();
  advance(1000);
  t.is(enter(gate, 10), 10);
  t.is(gate.inFlight, 13);
});

test('dropping below the limit before the window ends restarts it', (t) => {
  const { gate, advance } = gateAt(2, 8);
  t.is(enter(gate, 3), 3);
  advance(80);
  gate.leave();
  gate.leave();
  t.is(gate.inFlight, 1);
  t.true(gate.tryEnter());
  advance(80);
  t.true(gate.tryEnter(), '80 ms at the limit since it was last below');
  advance(20);
  t.false(gate.tryEnter());
});

test('a limit of 0 admits everything', (t) => {
  const { gate, advance } = gateAt(0, 0);
  t.is(enter(gate, 1000), 1000);
  advance(10_000);
  t.true(gate.tryEnter());
});

test('work is counted in units: a costly request takes its share of the limit, and one costing more than the limit runs alone', (t) => {
  const { gate } = gateAt(16, 16);
  t.is(enter(gate, 3), 3);
  t.true(gate.tryEnter(4));
  t.true(gate.tryEnter(4));
  t.true(gate.tryEnter(4));
  t.is(gate.inFlight, 15);
  t.false(gate.tryEnter(4), 'does not fit');
  t.true(gate.tryEnter(1));
  t.false(gate.tryEnter(1));
  gate.leave(4);
  t.true(gate.tryEnter(4));
  const { gate: small } = gateAt(2, 2);
  t.true(small.tryEnter(4), 'nothing else in flight');
  t.false(small.tryEnter(1));
  small.leave(4);
  t.is(small.inFlight, 0);
});
