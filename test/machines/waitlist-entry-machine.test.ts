import test from 'ava';
import { createActor } from 'xstate';
import {
  LAPSED_SLOTS_KEPT,
  waitlistEntryMachine,
  type WaitlistEntryEvent,
  type WaitlistOffer,
} from '../../machines/waitlist-entry-machine.js';

const T0 = '2026-03-02T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const offer = (n: number, expiresIn = 900): WaitlistOffer => ({
  resolutionId: `res_${n}`,
  holdId: `hld_${n}`,
  optionId: `opt_${n}`,
  providerId: 'prv_1',
  slotStart: `2026-03-0${n + 2}T14:00:00.000Z`,
  expiresAt: at(expiresIn),
});

function run(events: WaitlistEntryEvent[]) {
  const actor = createActor(waitlistEntryMachine, {
    input: { entryId: 'wl_1', organizationId: 'org_1', serviceId: 'svc_1', mode: 'live', at: T0 },
  }).start();
  for (const e of events) actor.send(e);
  return actor.getSnapshot();
}

test('an entry starts waiting with no offer', (t) => {
  const s = run([]);
  t.is(s.value, 'waiting');
  t.is(s.context.offer, null);
  t.is(s.context.offersMade, 0);
});

const cases: Array<{ name: string; events: WaitlistEntryEvent[]; value: string; context?: Record<string, unknown> }> = [
  {
    name: 'an offer is recorded and counted',
    events: [{ type: 'OFFER', offer: offer(1), at: at(1) }],
    value: 'offered',
    context: { offer: offer(1), offersMade: 1 },
  },
  {
    name: 'a second offer while offered is ignored (one offer at most)',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'OFFER', offer: offer(2), at: at(2) },
    ],
    value: 'offered',
    context: { offer: offer(1), offersMade: 1 },
  },
  {
    name: 'LAPSE before the offer ends is ignored',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'LAPSE', at: at(899) },
    ],
    value: 'offered',
  },
  {
    name: 'LAPSE at the offer end returns to waiting and remembers the slot',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'LAPSE', at: at(900) },
    ],
    value: 'waiting',
    context: { offer: null, offersMade: 1, lapsedSlots: [{ providerId: 'prv_1', slotStart: offer(1).slotStart }] },
  },
  {
    name: 'after a lapse another offer is taken',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'LAPSE', at: at(900) },
      { type: 'OFFER', offer: offer(2, 2000), at: at(901) },
    ],
    value: 'offered',
    context: { offer: offer(2, 2000), offersMade: 2 },
  },
  {
    name: 'BOOK with the offered resolution books',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'BOOK', resolutionId: 'res_1', bookingId: 'bkg_1', at: at(60) },
    ],
    value: 'booked',
    context: { bookingId: 'bkg_1', bookedAt: at(60), offer: offer(1) },
  },
  {
    name: 'BOOK with another resolution is ignored',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'BOOK', resolutionId: 'res_9', bookingId: 'bkg_1', at: at(60) },
    ],
    value: 'offered',
  },
  {
    name: 'BOOK while waiting is ignored',
    events: [{ type: 'BOOK', resolutionId: 'res_1', bookingId: 'bkg_1', at: at(60) }],
    value: 'waiting',
  },
  {
    name: 'a late LAPSE after booking is harmless',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'BOOK', resolutionId: 'res_1', bookingId: 'bkg_1', at: at(60) },
      { type: 'LAPSE', at: at(5000) },
    ],
    value: 'booked',
  },
  {
    name: 'cancel while waiting',
    events: [{ type: 'CANCEL', at: at(5) }],
    value: 'cancelled',
    context: { cancelledAt: at(5) },
  },
  {
    name: 'cancel while offered',
    events: [
      { type: 'OFFER', offer: offer(1), at: at(1) },
      { type: 'CANCEL', at: at(5) },
    ],
    value: 'cancelled',
  },
  {
    name: 'a cancelled entry takes no offer',
    events: [
      { type: 'CANCEL', at: at(5) },
      { type: 'OFFER', offer: offer(1), at: at(6) },
    ],
    value: 'cancelled',
    context: { offer: null, offersMade: 0 },
  },
];

for (const c of cases)
  test(c.name, (t) => {
    const s = run(c.events);
    t.is(s.value as string, c.value);
    for (const [k, v] of Object.entries(c.context ?? {})) t.deepEqual((s.context as any)[k], v, k);
  });

test(`at most ${LAPSED_SLOTS_KEPT} lapsed slots are kept, the newest`, (t) => {
  const events: WaitlistEntryEvent[] = [];
  for (let i = 0; i < LAPSED_SLOTS_KEPT + 3; i++) {
    events.push({
      type: 'OFFER',
      offer: { ...offer(1), slotStart: at(10_000 + i), expiresAt: at(i * 10 + 5) },
      at: at(i * 10),
    });
    events.push({ type: 'LAPSE', at: at(i * 10 + 5) });
  }
  const s = run(events);
  t.is(s.context.lapsedSlots.length, LAPSED_SLOTS_KEPT);
  t.is(s.context.lapsedSlots.at(-1)!.slotStart, at(10_000 + LAPSED_SLOTS_KEPT + 2));
  t.is(s.context.offersMade, LAPSED_SLOTS_KEPT + 3);
});

test('a persisted snapshot restores and keeps deciding', (t) => {
  const input = { entryId: 'wl_1', organizationId: 'org_1', serviceId: 'svc_1', mode: 'test' as const, at: T0 };
  const first = createActor(waitlistEntryMachine, { input }).start();
  first.send({ type: 'OFFER', offer: offer(1), at: at(1) });
  const restored = createActor(waitlistEntryMachine, {
    input,
    snapshot: JSON.parse(JSON.stringify(first.getPersistedSnapshot())),
  }).start();
  restored.send({ type: 'LAPSE', at: at(900) });
  t.is(restored.getSnapshot().value, 'waiting');
  t.is(restored.getSnapshot().context.mode, 'test');
});
