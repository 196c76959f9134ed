import test from 'ava';
import { createActor } from 'xstate';
import { bookingMachine, type BookingEvent } from '../../machines/booking-machine.js';

const T0 = '2026-03-02T10:00:00.000Z';
const START = '2026-03-05T15:00:00.000Z';
const END = '2026-03-05T15:50:00.000Z';
const after = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

function run(initialStatus: 'pending' | 'confirmed', events: BookingEvent[]) {
  const actor = createActor(bookingMachine, {
    input: { bookingId: 'bkg_1', organizationId: 'org_1', initialStatus, startsAt: START, endsAt: END, at: T0 },
  }).start();
  for (const e of events) actor.send(e);
  return actor.getSnapshot();
}

test('v1 create starts pending, v2 confirm starts confirmed', (t) => {
  t.is(run('pending', []).value, 'pending');
  t.is(run('pending', []).context.confirmedAt, null);
  t.is(run('confirmed', []).value, 'confirmed');
  t.is(run('confirmed', []).context.confirmedAt, T0);
});

const cases: Array<{
  name: string;
  start: 'pending' | 'confirmed';
  events: BookingEvent[];
  value: string;
  context?: Record<string, unknown>;
}> = [
  {
    name: 'pending confirms',
    start: 'pending',
    events: [{ type: 'CONFIRM', at: after(T0, 60) }],
    value: 'confirmed',
    context: { confirmedAt: after(T0, 60) },
  },
  {
    name: 'a second confirm keeps the first time',
    start: 'pending',
    events: [
      { type: 'CONFIRM', at: after(T0, 60) },
      { type: 'CONFIRM', at: after(T0, 90) },
    ],
    value: 'confirmed',
    context: { confirmedAt: after(T0, 60) },
  },
  {
    name: 'pending cancels',
    start: 'pending',
    events: [{ type: 'CANCEL', at: after(T0, 5), reason: 'client' }],
    value: 'cancelled',
    context: { cancelledAt: after(T0, 5), cancellationReason: 'client' },
  },
  {
    name: 'confirmed cancels',
    start: 'confirmed',
    events: [{ type: 'CANCEL', at: after(T0, 5) }],
    value: 'cancelled',
    context: { cancellationReason: null },
  },
  {
    name: 'pending reschedules',
    start: 'pending',
    events: [{ type: 'RESCHEDULE', at: after(T0, 5), rescheduledTo: 'bkg_2' }],
    value: 'rescheduled',
    context: { rescheduledTo: 'bkg_2', rescheduledAt: after(T0, 5) },
  },
  {
    name: 'confirmed reschedules',
    start: 'confirmed',
    events: [{ type: 'RESCHEDULE', at: after(T0, 5), rescheduledTo: 'bkg_2' }],
    value: 'rescheduled',
  },
  {
    name: 'a cancelled booking cannot be rescheduled',
    start: 'confirmed',
    events: [
      { type: 'CANCEL', at: after(T0, 5) },
      { type: 'RESCHEDULE', at: after(T0, 6), rescheduledTo: 'bkg_2' },
    ],
    value: 'cancelled',
    context: { rescheduledTo: null },
  },
  {
    name: 'a rescheduled booking cannot be cancelled',
    start: 'pending',
    events: [
      { type: 'RESCHEDULE', at: after(T0, 5), rescheduledTo: 'bkg_2' },
      { type: 'CANCEL', at: after(T0, 6) },
    ],
    value: 'rescheduled',
    context: { cancelledAt: null },
  },
  {
    name: 'COMPLETE before the end is ignored',
    start: 'confirmed',
    events: [{ type: 'COMPLETE', at: after(END, -1) }],
    value: 'confirmed',
  },
  {
    name: 'COMPLETE at the end completes',
    start: 'confirmed',
    events: [{ type: 'COMPLETE', at: END }],
    value: 'completed',
    context: { completedAt: END },
  },
  {
    name: 'a late COMPLETE records the end time',
    start: 'confirmed',
    events: [{ type: 'COMPLETE', at: after(END, 3600) }],
    value: 'completed',
    context: { completedAt: END },
  },
  {
    name: 'a pending booking does not complete',
    start: 'pending',
    events: [{ type: 'COMPLETE', at: after(END, 60) }],
    value: 'pending',
  },
  {
    name: 'a completed booking cannot be cancelled',
    start: 'confirmed',
    events: [
      { type: 'COMPLETE', at: END },
      { type: 'CANCEL', at: after(END, 1) },
    ],
    value: 'completed',
  },
];

for (const c of cases) {
  test(c.name, (t) => {
    const snap = run(c.start, c.events);
    t.is(snap.value as string, c.value);
    for (const [k, v] of Object.entries(c.context ?? {}))
      t.deepEqual((snap.context as unknown as Record<string, unknown>)[k], v, k);
  });
}

test('each instant is set by the event that happens and kept by the later ones', (t) => {
  const rescheduled = run('pending', [
    { type: 'CONFIRM', at: after(T0, 60) },
    { type: 'RESCHEDULE', at: after(T0, 120), rescheduledTo: 'bkg_2' },
  ]);
  t.like(rescheduled.context, {
    confirmedAt: after(T0, 60),
    rescheduledAt: after(T0, 120),
    completedAt: null,
    updatedAt: after(T0, 120),
  });
  const completed = run('pending', [
    { type: 'CONFIRM', at: after(T0, 60) },
    { type: 'COMPLETE', at: after(END, 5) },
  ]);
  t.like(completed.context, {
    confirmedAt: after(T0, 60),
    rescheduledAt: null,
    completedAt: END,
    updatedAt: after(END, 5),
  });
  const v2 = run('confirmed', [{ type: 'COMPLETE', at: END }]);
  t.like(v2.context, { confirmedAt: T0, completedAt: END });
});

test('rescheduledFrom comes from input', (t) => {
  const actor = createActor(bookingMachine, {
    input: {
      bookingId: 'bkg_2',
      organizationId: 'org_1',
      initialStatus: 'pending',
      startsAt: START,
      endsAt: END,
      at: T0,
      rescheduledFrom: 'bkg_1',
    },
  }).start();
  t.is(actor.getSnapshot().context.rescheduledFrom, 'bkg_1');
});
