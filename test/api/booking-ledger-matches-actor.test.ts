import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { bookingActorKind } from '../../machines/machine-versions.js';

// The booking machine is the only writer of a booking's lifecycle: after every v1 operation the ledger row's status
// (and the fields the machine's context decides) must be the booking actor's own state.
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

/** The ledger row and the actor of one booking, side by side. */
async function sides(id: string) {
  const r = await svc.service.deps.db.query(
    'SELECT status, confirmed_at, cancelled_at, cancel_reason, rescheduled_at, rescheduled_to, rescheduled_from, completed_at FROM bookings WHERE id = $1',
    [id],
  );
  const row = r.rows[0];
  const snap = await svc.service.deps.actors.getSnapshot(bookingActorKind, id);
  return {
    ledger: {
      status: row?.status,
      confirmedAt: iso(row?.confirmed_at),
      cancelledAt: iso(row?.cancelled_at),
      cancellationReason: row?.cancel_reason ?? null,
      rescheduledAt: iso(row?.rescheduled_at),
      rescheduledTo: row?.rescheduled_to ?? null,
      rescheduledFrom: row?.rescheduled_from ?? null,
      completedAt: iso(row?.completed_at),
    },
    actor: snap && {
      status: String(snap.value),
      confirmedAt: snap.context.confirmedAt,
      cancelledAt: snap.context.cancelledAt,
      cancellationReason: snap.context.cancellationReason,
      rescheduledAt: snap.context.rescheduledAt,
      rescheduledTo: snap.context.rescheduledTo,
      rescheduledFrom: snap.context.rescheduledFrom,
      completedAt: snap.context.completedAt,
    },
  };
}

/** Asserts every booking of the organization agrees with its actor, and answers the statuses by id. */
async function agree(t: ExecutionContext, orgId: string, step: string): Promise<Record<string, string>> {
  const ids = (
    await svc.service.deps.db.query('SELECT id FROM bookings WHERE organization_id = $1 ORDER BY id', [orgId])
  ).rows.map((x) => x.id as string);
  const statuses: Record<string, string> = {};
  for (const id of ids) {
    const { ledger, actor } = await sides(id);
    t.deepEqual(actor, ledger, `${step}: booking ${id}`);
    statuses[id] = ledger.status;
  }
  return statuses;
}

test.serial("after each v1 operation a booking's stored status and fields are its actor's state", async (t) => {
  const o = await newOrganization(svc, `agree-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const slot = async (date: string, time: string) => {
    const r = await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=${date}`);
    return r.body.slots.find((x: any) => x.time === time).id as string;
  };
  const create = async (date: string, time: string) => {
    const r = await o.api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: await slot(date, time),
      attendee,
    });
    t.is(r.status, 200, JSON.stringify(r.body));
    return { id: r.body.data.id as string, token: r.body.data.tokenToConfirm as string };
  };
  const confirm = (b: { id: string; token: string }) =>
    request(svc.url, 'GET', `/api/v1/bookings/${b.id}/confirm?token=${b.token}`, {
      headers: { accept: 'application/json' },
    });

  const a = await create('2026-03-02', '09:00');
  t.is((await agree(t, o.org.id, 'create'))[a.id], 'pending');
  t.is((await confirm(a)).status, 200);
  t.is((await agree(t, o.org.id, 'confirmation link'))[a.id], 'confirmed');
  t.is((await sides(a.id)).ledger.confirmedAt, clock().toISOString());
  t.is((await confirm(a)).status, 200);
  await agree(t, o.org.id, 'confirmation link again');

  const b = await create('2026-03-03', '10:00');
  const moved = await o.api.post(`/api/v1/bookings/${b.id}/reschedule`, { date: '2026-03-04', time: '11:00' });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  const statuses = await agree(t, o.org.id, 'reschedule');
  t.is(statuses[b.id], 'rescheduled');
  t.is(statuses[moved.body.data.id], 'pending');
  t.is((await sides(b.id)).ledger.rescheduledAt, clock().toISOString());

  t.is((await o.api.post(`/api/v1/bookings/${moved.body.data.id}/cancel`, { reason: 'plans changed' })).status, 200);
  t.is((await agree(t, o.org.id, 'cancel'))[moved.body.data.id], 'cancelled');
  t.is((await o.api.post(`/api/v1/bookings/${moved.body.data.id}/cancel`, {})).status, 409);
  await agree(t, o.org.id, 'cancel of a cancelled booking');

  // Completion by the durable timer: the ledger commits first, then the actor mirrors; both must end `completed`.
  clock.set('2026-03-02T15:00:01Z');
  let seen = { ledger: { status: '' }, actor: { status: '' } as { status: string } | undefined };
  for (let i = 0; i < 75 && !(seen.ledger.status === 'completed' && seen.actor?.status === 'completed'); i++) {
    await new Promise((r) => setTimeout(r, 200));
    seen = await sides(a.id);
  }
  t.is(seen.ledger.status, 'completed');
  t.is((await agree(t, o.org.id, 'completion by timer'))[a.id], 'completed');
  const endAt = (await svc.service.deps.db.query('SELECT end_at FROM bookings WHERE id = $1', [a.id])).rows[0]
    .end_at as Date;
  t.like((await sides(a.id)).ledger, { confirmedAt: '2026-03-02T12:00:00.000Z', completedAt: endAt.toISOString() });
  t.is((await o.api.post(`/api/v1/bookings/${a.id}/reschedule`, { date: '2026-03-05', time: '09:00' })).status, 409);
  await agree(t, o.org.id, 'reschedule of a completed booking');
});
