import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { bookingActorKind } from '../../machines/machine-versions.js';
import { actorKeys } from '../../src/persistence/redis-keys.js';
import { completeBooking } from '../../src/application/booking/complete-booking.js';
import { findBooking } from '../../src/persistence/booking-repository.js';
import { writeBookingActor } from '../../src/application/booking/write-booking-actor.js';
import { SYSTEM_CAUSE } from '../../src/application/step-cause.js';

// A booking step commits its row first and writes its actor from the same transition after: a crash in between
// leaves the actor behind its row. The next step of that booking (even one the machine ignores) brings the actor up to
// the row, and a booking whose actor is gone gets it back at the row's state.
let svc: TestService;
// Monday 2 March 2026, 07:00 in New York (EST, UTC-5).
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const iso = (d: Date | null | undefined): string | null => d?.toISOString() ?? null;

/** A fresh organization's v1 booking at `time` on 2 March (pending, with its confirmation token). */
async function pendingBooking(time: string) {
  const o = await newOrganization(svc, `repair-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const slots = await o.api.get(
    `/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-02`,
  );
  const slotId = slots.body.slots.find((x: any) => x.time === time).id as string;
  const r = await o.api.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId,
    attendee,
  });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return { o, id: r.body.data.id as string, token: r.body.data.tokenToConfirm as string };
}

const confirmLink = (b: { id: string; token: string }) =>
  request(svc.url, 'GET', `/api/v1/bookings/${b.id}/confirm?token=${b.token}`, {
    headers: { accept: 'application/json' },
  });

/** Runs `step` and then puts the booking actor's state hash back as it was: the actor write of that step was lost. */
async function losingTheActorWrite(id: string, step: () => Promise<unknown>) {
  const key = actorKeys(bookingActorKind.name, id).state;
  const saved = (await svc.service.deps.redis.hGetAll(key)) as unknown as Record<string, string>;
  await step();
  await svc.service.deps.redis.hSet(key, saved);
}

/** Asserts the booking's actor holds its ledger row's state and fields. */
async function agrees(t: ExecutionContext, id: string, status: string) {
  const row = (await findBooking(svc.service.deps.db, id))!;
  const snap = await svc.service.deps.actors.getSnapshot(bookingActorKind, id);
  t.is(row.status as string, status);
  t.deepEqual(
    snap && {
      status: String(snap.value),
      confirmedAt: snap.context.confirmedAt,
      cancelledAt: snap.context.cancelledAt,
      completedAt: snap.context.completedAt,
      updatedAt: snap.context.updatedAt,
    },
    {
      status: row.status,
      confirmedAt: iso(row.confirmed_at),
      cancelledAt: iso(row.cancelled_at),
      completedAt: iso(row.completed_at),
      updatedAt: iso(row.updated_at),
    },
  );
}

test.serial('an actor left pending by a lost write is brought to the row by the next step (COMPLETE)', async (t) => {
  clock.set('2026-03-02T12:00:00Z');
  const b = await pendingBooking('09:00');
  await losingTheActorWrite(b.id, async () => t.is((await confirmLink(b)).status, 200));
  t.is((await svc.service.deps.actors.getSnapshot(bookingActorKind, b.id))?.value, 'pending');
  clock.set('2026-03-02T15:00:01Z');
  await completeBooking(svc.service.deps, b.id);
  await agrees(t, b.id, 'completed');
  // The actor was not where the step started (confirmed): it catches up with its row, named as such.
  t.like((await svc.service.deps.actors.history(bookingActorKind, b.id)).at(-1), {
    event: 'RESYNC',
    from: 'pending',
    to: 'completed',
  });
});

test.serial('a step the machine ignores repairs a lagging actor (the confirmation link followed again)', async (t) => {
  clock.set('2026-03-02T12:00:00Z');
  const b = await pendingBooking('10:00');
  // A new booking's actor is created at the row's state: one history entry, no repair needed.
  t.deepEqual(
    (await svc.service.deps.actors.history(bookingActorKind, b.id)).map((h) => h.event),
    ['create'],
  );
  await losingTheActorWrite(b.id, async () => t.is((await confirmLink(b)).status, 200));
  t.is((await confirmLink(b)).status, 200);
  await agrees(t, b.id, 'confirmed');
  t.like((await svc.service.deps.actors.history(bookingActorKind, b.id)).at(-1), {
    event: 'RESYNC',
    from: 'pending',
    to: 'confirmed',
    causedBy: { type: 'system' },
  });
});

test.serial("a booking whose actor is gone gets it back at its row's state on its next step", async (t) => {
  clock.set('2026-03-02T12:00:00Z');
  const b = await pendingBooking('11:00');
  t.is((await confirmLink(b)).status, 200);
  const keys = actorKeys(bookingActorKind.name, b.id);
  await svc.service.deps.redis.del([keys.state, keys.history, keys.timers, keys.outbox]);
  clock.set('2026-03-02T12:05:00Z');
  t.is((await b.o.api.post(`/api/v1/bookings/${b.id}/cancel`, { reason: 'plans changed' })).status, 200);
  await agrees(t, b.id, 'cancelled');
  t.deepEqual(
    (await svc.service.deps.actors.history(bookingActorKind, b.id)).map((h) => [h.event, h.to]),
    [
      ['create', 'pending'],
      ['RESYNC', 'cancelled'],
    ],
  );
});

test.serial('a slower writer of an earlier step never overwrites a final actor', async (t) => {
  clock.set('2026-03-02T12:00:00Z');
  const b = await pendingBooking('12:00');
  t.is((await confirmLink(b)).status, 200);
  const confirmed = (await findBooking(svc.service.deps.db, b.id))!;
  t.is((await b.o.api.post(`/api/v1/bookings/${b.id}/cancel`, {})).status, 200);
  await writeBookingActor(svc.service.deps, confirmed, { causedBy: SYSTEM_CAUSE });
  await agrees(t, b.id, 'cancelled');
  // Steps whose actor was where they started are named by their events.
  t.deepEqual(
    (await svc.service.deps.actors.history(bookingActorKind, b.id)).map((h) => h.event),
    ['create', 'CONFIRM', 'CANCEL'],
  );
});
