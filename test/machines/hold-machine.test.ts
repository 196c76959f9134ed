import test from 'ava';
import { createActor } from 'xstate';
import { holdMachine, type HoldEvent } from '../../machines/hold-machine.js';

const T0 = '2026-03-02T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function run(events: HoldEvent[]) {
  const actor = createActor(holdMachine, {
    input: { holdId: 'hold_1', resolutionId: 'res_1', optionId: 'opt_1', at: T0, expiresAt: at(120) },
  }).start();
  for (const e of events) actor.send(e);
  return actor.getSnapshot();
}

test('a hold starts active', (t) => {
  const s = run([]);
  t.is(s.value, 'active');
  t.is(s.context.createdAt, T0);
});

const cases: Array<{ name: string; events: HoldEvent[]; value: string; context?: Record<string, unknown> }> = [
  {
    name: 'release records releasedAt',
    events: [{ type: 'RELEASE', at: at(30) }],
    value: 'released',
    context: { releasedAt: at(30) },
  },
  {
    name: 'a second release changes nothing',
    events: [
      { type: 'RELEASE', at: at(30) },
      { type: 'RELEASE', at: at(40) },
    ],
    value: 'released',
    context: { releasedAt: at(30) },
  },
  {
    name: 'release after the lifetime finds it expired',
    events: [{ type: 'RELEASE', at: at(120) }],
    value: 'expired',
    context: { releasedAt: null, expiredAt: at(120) },
  },
  { name: 'EXPIRE early is ignored', events: [{ type: 'EXPIRE', at: at(119) }], value: 'active' },
  {
    name: 'EXPIRE at expiresAt expires',
    events: [{ type: 'EXPIRE', at: at(120) }],
    value: 'expired',
    context: { expiredAt: at(120) },
  },
  {
    name: 'a late EXPIRE after release is harmless',
    events: [
      { type: 'RELEASE', at: at(10) },
      { type: 'EXPIRE', at: at(500) },
    ],
    value: 'released',
    context: { expiredAt: null },
  },
  {
    name: 'confirm consumes the hold',
    events: [{ type: 'CONFIRM', bookingId: 'bkg_1', at: at(60) }],
    value: 'consumed',
    context: { bookingId: 'bkg_1', consumedAt: at(60) },
  },
  {
    name: 'confirm after the lifetime finds it expired',
    events: [{ type: 'CONFIRM', bookingId: 'bkg_1', at: at(121) }],
    value: 'expired',
    context: { bookingId: null },
  },
  {
    name: 'a consumed hold cannot be released',
    events: [
      { type: 'CONFIRM', bookingId: 'bkg_1', at: at(60) },
      { type: 'RELEASE', at: at(61) },
    ],
    value: 'consumed',
    context: { releasedAt: null },
  },
  {
    name: 'a released hold cannot be confirmed',
    events: [
      { type: 'RELEASE', at: at(10) },
      { type: 'CONFIRM', bookingId: 'bkg_1', at: at(11) },
    ],
    value: 'released',
    context: { bookingId: null },
  },
];

for (const c of cases) {
  test(c.name, (t) => {
    const snap = run(c.events);
    t.is(snap.value as string, c.value);
    for (const [k, v] of Object.entries(c.context ?? {}))
      t.deepEqual((snap.context as unknown as Record<string, unknown>)[k], v, k);
  });
}
