import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import {
  BookingServiceClient,
  type BookSlotResponse,
  type CancelBookingResponse,
  type RescheduleBookingResponse,
} from '../../src/gen/scheduling/v1/booking_service.js';
import { BookingStatus } from '../../src/gen/scheduling/v1/resources.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { bearer, unaryCall } from '../helpers/typed-calls.js';

// The v1 direct path's writes (BookSlot, RescheduleBooking, CancelBooking) keep their answer under an Idempotency-Key
// for 24 hours, in PostgreSQL with the write and in Redis. Until this release that answer was the v1 REST JSON; it is
// now the typed response (the booking resource) in its proto3 JSON. An answer stored in the earlier form, in Redis or
// only in PostgreSQL, still replays its v1 JSON byte for byte, and a typed call replays the booking it holds.
let svc: TestService;
let grpc: BookingServiceClient;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
  grpc = new BookingServiceClient(svc.grpcTarget, credentials.createInsecure());
});
test.after.always(async () => {
  grpc?.close();
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** A POST's status, `Idempotent-Replayed` and body text as sent (byte for byte). */
async function post(o: Org, path: string, body: unknown, key: string) {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.key}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
}

const keyHash = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * Puts `answer` in place of the answer stored for a key, as the earlier release stored it: in PostgreSQL, and in
 * Redis unless `redis` is false (then Redis lost it, and PostgreSQL answers the replay).
 */
async function storeEarlierForm(o: Org, endpoint: string, key: string, answer: unknown, redis: boolean) {
  const { db, redis: r } = svc.service.deps;
  const updated = await db.query(
    'UPDATE idempotency_answers SET answer = $4::json WHERE organization_id = $1 AND endpoint = $2 AND key_hash = $3',
    [o.org.id, endpoint, keyHash(key), JSON.stringify(answer)],
  );
  if (updated.rowCount !== 1) throw new Error(`no stored answer for ${endpoint}`);
  const redisKey = `idem:{${o.org.id}}:${endpoint}:${keyHash(key)}`;
  const marker = JSON.parse(String(await r.get(redisKey))) as { state: string; response: unknown };
  if (marker.state !== 'done') throw new Error(`no answer in Redis for ${endpoint}`);
  if (redis) await r.set(redisKey, JSON.stringify({ ...marker, response: answer }), { PX: 3_600_000 });
  else await r.del(redisKey);
}

/** The v1 slot id of `time` on 3 March. */
async function slotAt(o: Org, p: Awaited<ReturnType<typeof providerWithService>>, time: string): Promise<string> {
  const res = await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-03`);
  const slot = res.body.slots?.find((s: { time: string }) => s.time === time);
  if (!slot) throw new Error(`no slot ${time}: ${JSON.stringify(res.body)}`);
  return slot.id;
}

/** A new organization with provider p1, and the v1 create body of p1's slot at `time` on 3 March. */
async function orgWithSlot(name: string, time: string) {
  const o = await newOrganization(svc, `${name}-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const create = { providerId: p.provider.id, serviceId: p.service.id, slotId: await slotAt(o, p, time), attendee };
  return { o, p, create };
}

for (const redis of [true, false]) {
  const from = redis ? 'Redis' : 'PostgreSQL (Redis lost it)';
  test.serial(`v1 answers stored in the earlier form (the v1 JSON) replay byte for byte from ${from}`, async (t) => {
    const { o, p, create } = await orgWithSlot('v1-earlier', '09:00');

    // A create: the earlier form held the v1 JSON as its write committed it. A service title holding ` with ` still
    // joins back to the same title.
    const createKey = randomUUID();
    const made = await post(o, '/api/v1/bookings', create, createKey);
    t.is(made.status, 200, made.text);
    const d = JSON.parse(made.text).data;
    const createdBefore = {
      data: {
        id: d.id,
        status: 'pending',
        title: 'Talk with care with Dr. p1',
        date: '2026-03-03T14:00:00.000Z',
        end_time: '2026-03-03T15:00:00.000Z',
        tokenToConfirm: d.tokenToConfirm,
        resolutionId: null,
      },
    };
    await storeEarlierForm(o, 'v1-bookings', createKey, createdBefore, redis);
    const createdAgain = await post(o, '/api/v1/bookings', create, createKey);
    t.like(createdAgain, { status: 200, replayed: 'true', text: JSON.stringify(createdBefore) });
    // A typed replay answers the booking the stored answer holds, and its token.
    const typed = await unaryCall<BookSlotResponse>(
      grpc,
      'bookSlot',
      create,
      bearer(o.key, { 'idempotency-key': createKey }),
    );
    t.like(typed, {
      confirmationToken: d.tokenToConfirm,
      booking: {
        id: d.id,
        organizationId: o.org.id,
        bookingStatus: BookingStatus.BOOKING_STATUS_PENDING,
        service: { displayName: 'Talk' },
        provider: { displayName: 'care with Dr. p1' },
        slot: { start: new Date('2026-03-03T14:00:00.000Z'), end: new Date('2026-03-03T15:00:00.000Z') },
      },
    });
    t.is(typed.booking!.resolutionId, undefined);

    // A reschedule: the earlier form held the new booking as `{data: {id, status, title, date, end_time}}`.
    const moveKey = randomUUID();
    const move = { date: '2026-03-03', time: '13:00' };
    const moved = await post(o, `/api/v1/bookings/${d.id}/reschedule`, move, moveKey);
    t.is(moved.status, 200, moved.text);
    const m = JSON.parse(moved.text).data;
    const movedBefore = {
      data: {
        id: m.id,
        status: 'pending',
        title: 'Intake Session with Dr. p1',
        date: '2026-03-03T18:00:00.000Z',
        end_time: '2026-03-03T19:00:00.000Z',
      },
    };
    t.deepEqual(m, movedBefore.data, 'the same JSON as the earlier release answered');
    await storeEarlierForm(o, `v1-reschedule:${d.id}`, moveKey, movedBefore, redis);
    t.like(await post(o, `/api/v1/bookings/${d.id}/reschedule`, move, moveKey), {
      status: 200,
      replayed: 'true',
      text: JSON.stringify(movedBefore),
    });
    const typedMove = await unaryCall<RescheduleBookingResponse>(
      grpc,
      'rescheduleBooking',
      { id: d.id, ...move },
      bearer(o.key, { 'idempotency-key': moveKey }),
    );
    t.like(typedMove.booking, { id: m.id, bookingStatus: BookingStatus.BOOKING_STATUS_PENDING });

    // A cancellation: the earlier form held bare `{bookingId, status, cancelledAt}`.
    clock.advance(60_000);
    const cancelKey = randomUUID();
    const cancelled = await post(o, `/api/v1/bookings/${m.id}/cancel`, { reason: 'r' }, cancelKey);
    t.is(cancelled.status, 200, cancelled.text);
    const cancelledBefore = { bookingId: m.id, status: 'cancelled', cancelledAt: clock().toISOString() };
    t.is(cancelled.text, JSON.stringify(cancelledBefore), 'the same JSON as the earlier release answered');
    await storeEarlierForm(o, `v1-cancel:${m.id}`, cancelKey, cancelledBefore, redis);
    clock.advance(60_000);
    t.like(await post(o, `/api/v1/bookings/${m.id}/cancel`, { reason: 'r' }, cancelKey), {
      status: 200,
      replayed: 'true',
      text: JSON.stringify(cancelledBefore),
    });
    const typedCancel = await unaryCall<CancelBookingResponse>(
      grpc,
      'cancelBooking',
      { id: m.id, reason: 'r' },
      bearer(o.key, { 'idempotency-key': cancelKey }),
    );
    t.like(typedCancel.booking, { id: m.id, bookingStatus: BookingStatus.BOOKING_STATUS_CANCELLED });
    t.deepEqual(typedCancel.booking!.cancelledAt, new Date(cancelledBefore.cancelledAt));
  });
}

test.serial(
  'an answer stored in this release form replays the same booking over both doors, from Redis and from PostgreSQL',
  async (t) => {
    const { o, p, create } = await orgWithSlot('v1-now', '10:00');
    const key = randomUUID();
    const made = await post(o, '/api/v1/bookings', create, key);
    t.is(made.status, 200, made.text);
    const stored = await svc.service.deps.db.query(
      `SELECT answer FROM idempotency_answers WHERE organization_id = $1 AND endpoint = 'v1-bookings'`,
      [o.org.id],
    );
    const answer = stored.rows[0].answer;
    t.like(answer, {
      booking: { id: JSON.parse(made.text).data.id },
      confirmationToken: JSON.parse(made.text).data.tokenToConfirm,
    });
    const first = await unaryCall<BookSlotResponse>(
      grpc,
      'bookSlot',
      create,
      bearer(o.key, { 'idempotency-key': key }),
    );
    t.like(first.booking, { provider: { id: p.provider.id }, customer: { email: attendee.email } });
    t.like(await post(o, '/api/v1/bookings', create, key), { status: 200, replayed: 'true', text: made.text });
    await svc.service.deps.redis.del(`idem:{${o.org.id}}:v1-bookings:${keyHash(key)}`);
    t.like(await post(o, '/api/v1/bookings', create, key), { status: 200, replayed: 'true', text: made.text });
    t.deepEqual(
      await unaryCall<BookSlotResponse>(grpc, 'bookSlot', create, bearer(o.key, { 'idempotency-key': key })),
      first,
    );
  },
);
