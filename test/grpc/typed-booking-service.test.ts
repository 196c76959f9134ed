import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  BookingServiceClient,
  type BookSlotResponse,
  type CancelBookingResponse,
  type ConfirmBookingResponse,
  type GetBookingResponse,
  type ListBookingsRequest,
  type ListBookingsResponse,
  type ListSlotsResponse,
  type RescheduleBookingResponse,
} from '../../src/gen/scheduling/v1/booking_service.js';
import { BookingStatus, BookingV2_Source } from '../../src/gen/scheduling/v1/resources.js';
import { bookingRoutes } from '../../src/contract/routes/booking-routes.js';
import { restJsonOf } from '../../src/gateway/rest-json-of.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { getBooking } from '../../src/api/booking-service/get-booking.js';
import { listBookings } from '../../src/api/booking-service/list-bookings.js';
import { listSlots } from '../../src/api/booking-service/list-slots.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { request } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { errorInfoOf } from '../helpers/typed-calls.js';

/**
 * BookingService on its typed messages (src/api/booking-service/): typed answers of the direct path (ListSlots,
 * BookSlot, ConfirmBooking, RescheduleBooking, CancelBooking) and of the reads v1 REST maps onto (GetBooking,
 * ListBookings with `skip` and `include_total`), the confirmation link without an API key, Idempotency-Key replays,
 * refusals with the contract's code as ErrorInfo reason and the REST field, implementations callable with their deps
 * alone, and REST answering what the RPCs answer.
 */

let svc: TestService;
let bookings: BookingServiceClient;
// Monday 2 March 2026, 07:00 in New York: weekday slots 09:00-17:00 local are ahead.
const clock = createTestClock('2026-03-02T12:00:00Z');
type Org = Awaited<ReturnType<typeof newOrganization>>;
type Graph = Awaited<ReturnType<typeof providerWithService>>;
let o: Org;
let p: Graph;
let other: Org;
test.before(async () => {
  svc = await startTestService({ clock });
  bookings = new BookingServiceClient(svc.grpcTarget, credentials.createInsecure());
  o = await newOrganization(svc, `tbs-${randomUUID().slice(0, 8)}`);
  p = await providerWithService(o, { externalId: 'p1' });
  other = await newOrganization(svc, `tbs-other-${randomUUID().slice(0, 8)}`);
});
test.after.always(async () => {
  bookings?.close();
  await svc?.stop();
});

type Method =
  | 'listBookings'
  | 'getBooking'
  | 'listSlots'
  | 'bookSlot'
  | 'confirmBooking'
  | 'rescheduleBooking'
  | 'cancelBooking';

interface CallOpts {
  key?: string | null;
  headers?: Record<string, string>;
}

/** A unary call with its answer and trailers. */
function call<Res>(method: Method, req: object, opts: CallOpts = {}): Promise<{ res: Res; trailers: Metadata }> {
  const md = new Metadata();
  const key = opts.key === undefined ? o.key : opts.key;
  if (key !== null) md.set('authorization', `Bearer ${key}`);
  for (const [k, v] of Object.entries(opts.headers ?? {})) md.set(k, v);
  const fn = (bookings as unknown as Record<string, Function>)[method]!;
  return new Promise((resolve, reject) => {
    let trailers = new Metadata();
    const c = fn.call(bookings, req, md, (err: GrpcError | null, res: Res) =>
      err ? reject(err) : setImmediate(() => resolve({ res, trailers })),
    );
    c.on('status', (s: { metadata: Metadata }) => (trailers = s.metadata));
  });
}

const unary = async <Res>(method: Method, req: object, opts?: CallOpts) => (await call<Res>(method, req, opts)).res;

async function slotOf(date: string, time: string): Promise<string> {
  const slots = await unary<ListSlotsResponse>('listSlots', {
    providerId: p.provider.id,
    eventTypeId: p.service.id,
    date,
  });
  const s = slots.slots!.find((x) => x.time === time);
  if (!s) throw new Error(`no slot ${date} ${time}`);
  return s.id!;
}

const attendee = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
/** The booking route of a method and path: v1 and v2 reads share their RPCs. */
const route = (method: string, path: string) => bookingRoutes.find((r) => r.method === method && r.path === path)!;

test.serial(
  'the v1 path on typed messages: slots, create (replayed with its key), reads, confirm link, reschedule, cancel',
  async (t) => {
    const slots = await unary<ListSlotsResponse>('listSlots', {
      providerId: p.provider.id,
      eventTypeId: p.service.id,
      date: '2026-03-03',
    });
    t.is(slots.slots!.length, 8);
    t.like(slots.slots![0], { date: '2026-03-03', time: '09:00', label: '9:00 AM', available: true });
    const empty = await unary<ListSlotsResponse>('listSlots', {
      providerId: p.provider.id,
      eventTypeId: p.service.id,
      date: '2026-03-07',
    });
    t.deepEqual(empty, { slots: [] }, 'a weekend has no slot');

    const req = {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slots.slots![0]!.id,
      attendee,
    };
    const key = { 'idempotency-key': `k-${randomUUID()}` };
    const first = await call<BookSlotResponse>('bookSlot', req, { headers: key });
    // The booking resource, as GetBooking answers it, and the confirmation token only this answer carries.
    const created = first.res.booking!;
    const token = first.res.confirmationToken!;
    t.regex(token, /^[\w-]{43}$/);
    t.like(created, {
      bookingStatus: BookingStatus.BOOKING_STATUS_PENDING,
      organizationId: o.org.id,
      source: BookingV2_Source.SOURCE_V1,
      provider: { id: p.provider.id, displayName: 'Dr. p1' },
      service: { id: p.service.id, displayName: 'Intake Session', durationMinutes: 60 },
      customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
      slot: { start: new Date('2026-03-03T14:00:00.000Z'), end: new Date('2026-03-03T15:00:00.000Z') },
    });
    t.true(created.confirmationUrl!.endsWith(`/api/v1/bookings/${created.id}/confirm?token=${token}`));
    t.is(first.trailers.get('rest-header-idempotent-replayed').length, 0);
    const replay = await call<BookSlotResponse>('bookSlot', req, { headers: key });
    t.deepEqual(replay.res, first.res, 'a replay answers the first booking');
    t.deepEqual(
      (await unary<GetBookingResponse>('getBooking', { id: created.id })).booking,
      created,
      'the booking GetBooking answers',
    );
    t.deepEqual(replay.trailers.get('rest-header-idempotent-replayed'), ['true']);
    const reused = await t.throwsAsync<GrpcError>(() =>
      unary('bookSlot', { ...req, notes: 'another payload' }, { headers: key }),
    );
    t.like(errorInfoOf(reused!), { reason: 'IDEMPOTENCY_KEY_REUSED' });

    const id = created.id!;
    const v2 = await unary<GetBookingResponse>('getBooking', { id });
    t.like(v2.booking, {
      id,
      bookingStatus: BookingStatus.BOOKING_STATUS_PENDING,
      organizationId: o.org.id,
      source: BookingV2_Source.SOURCE_V1,
      customer: { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' },
      metadata: {},
    });
    t.is(v2.booking!.resolutionId, undefined, 'a null is an unset field');
    // What v1 REST shows of a booking and v2 REST does not: its confirmation link.
    t.true(v2.booking!.confirmationUrl!.endsWith(`/api/v1/bookings/${id}/confirm?token=${token}`));

    // The confirmation link takes no API key: its token is the credential. A page, or the JSON answer when accepted.
    const wrong = await t.throwsAsync<GrpcError>(() =>
      unary('confirmBooking', { id, token: 'not-the-token' }, { key: null }),
    );
    t.like(errorInfoOf(wrong!), { reason: 'BOOKING_NOT_FOUND' });
    const page = await unary<ConfirmBookingResponse>('confirmBooking', { id, token }, { key: null });
    t.regex(page.htmlPage!, /Your booking is confirmed/);
    t.is(page.bookingId, '');
    const json = await unary<ConfirmBookingResponse>(
      'confirmBooking',
      { id, token },
      { key: null, headers: { accept: 'application/json' } },
    );
    t.is(json.htmlPage, '');
    // The token holder learns the booking's id and status, nothing else of it (no attendee, organization, metadata).
    t.deepEqual(json, { htmlPage: '', bookingId: id, bookingStatus: BookingStatus.BOOKING_STATUS_CONFIRMED });
    t.is((await unary<GetBookingResponse>('getBooking', { id })).booking!.bookingStatus, json.bookingStatus);

    // Bookings made a second apart list in that order (one instant would leave it to their ids).
    clock.advance(1000);
    const moved = await unary<RescheduleBookingResponse>('rescheduleBooking', {
      id,
      date: '2026-03-04',
      time: '10:00',
    });
    const fresh = moved.booking!;
    t.like(fresh, { bookingStatus: BookingStatus.BOOKING_STATUS_PENDING, rescheduledFrom: id });
    t.deepEqual(fresh.slot!.start, new Date('2026-03-04T15:00:00.000Z'));
    t.not(fresh.id, id);
    t.true(fresh.confirmationUrl!.includes(`/api/v1/bookings/${fresh.id}/confirm?token=`), 'its own link');
    const old = await unary<GetBookingResponse>('getBooking', { id });
    t.like(old.booking, { bookingStatus: BookingStatus.BOOKING_STATUS_RESCHEDULED, rescheduledTo: fresh.id });

    const cancelled = await unary<CancelBookingResponse>('cancelBooking', {
      id: fresh.id,
      reason: 'changed plans',
    });
    t.like(cancelled.booking, { id: fresh.id, bookingStatus: BookingStatus.BOOKING_STATUS_CANCELLED });
    t.deepEqual(cancelled.booking!.cancelledAt, clock());
    t.deepEqual(cancelled.booking, (await unary<GetBookingResponse>('getBooking', { id: fresh.id })).booking);

    const listed = await unary<ListBookingsResponse>('listBookings', { pageSize: 1 });
    t.is(listed.data!.length, 1);
    t.true(listed.hasMore);
    t.is(listed.data![0]!.id, fresh.id, 'newest first');
    const next = await unary<ListBookingsResponse>('listBookings', { pageSize: 1, pageToken: listed.nextPageToken });
    t.is(next.data![0]!.id, id);
    t.is(listed.total, undefined, 'no count unless asked');
    // Paging by number (as v1 REST does): `skip` passes over bookings, `include_total` counts what the filter matches.
    const second = await unary<ListBookingsResponse>('listBookings', { pageSize: 1, skip: 1, includeTotal: true });
    t.deepEqual(
      second.data!.map((b) => b.id),
      [id],
    );
    t.is(second.total, 2);
    const byStatus = await unary<ListBookingsResponse>('listBookings', {
      bookingStatus: BookingStatus.BOOKING_STATUS_CANCELLED,
      includeTotal: true,
    });
    t.is(byStatus.total, 1);
    t.is(byStatus.data![0]!.id, fresh.id);
    const none = await unary<ListBookingsResponse>('listBookings', {
      bookingStatus: BookingStatus.BOOKING_STATUS_COMPLETED,
      includeTotal: true,
    });
    t.like(none, { data: [], total: 0, hasMore: false });
  },
);

test.serial('refusals carry the contract code as ErrorInfo reason and the REST field', async (t) => {
  const reasonOf = async (method: Method, req: object, opts?: CallOpts) => {
    const err = await t.throwsAsync<GrpcError>(() => unary(method, req, opts));
    const info = errorInfoOf(err!);
    return { reason: info.reason, field: info.metadata?.field };
  };
  t.deepEqual(
    await reasonOf('listSlots', { providerId: p.provider.id, eventTypeId: p.service.id, date: '2026-02-30' }),
    {
      reason: 'VALIDATION_ERROR',
      field: 'date',
    },
  );
  t.deepEqual(await reasonOf('listSlots', { eventTypeId: p.service.id, date: '2026-03-03' }), {
    reason: 'VALIDATION_ERROR',
    field: 'providerId',
  });
  t.deepEqual(
    await reasonOf('bookSlot', { providerId: p.provider.id, serviceId: p.service.id, slotId: 'nope', attendee }),
    { reason: 'VALIDATION_ERROR', field: 'slotId' },
  );
  const slot = await slotOf('2026-03-05', '11:00');
  t.deepEqual(
    await reasonOf('bookSlot', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slot,
      attendee: { name: 'Pat', email: 'not-an-email' },
    }),
    { reason: 'VALIDATION_ERROR', field: 'attendee.email' },
  );
  t.deepEqual(await reasonOf('bookSlot', { providerId: p.provider.id, serviceId: p.service.id, slotId: slot }), {
    reason: 'VALIDATION_ERROR',
    field: 'attendee',
  });
  t.deepEqual(await reasonOf('getBooking', { id: 'bkg_unknown' }), { reason: 'BOOKING_NOT_FOUND', field: undefined });
  t.deepEqual(await reasonOf('getBooking', { id: '' }), { reason: 'VALIDATION_ERROR', field: 'id' });
  t.deepEqual(await reasonOf('listBookings', { providerId: 'prv_unknown' }), {
    reason: 'PROVIDER_NOT_FOUND',
    field: 'providerId',
  });
  t.deepEqual(await reasonOf('listBookings', { pageSize: 501 }), { reason: 'VALIDATION_ERROR', field: 'limit' });
  t.deepEqual(await reasonOf('listBookings', { skip: -1 }), { reason: 'VALIDATION_ERROR', field: 'skip' });
  const made = await unary<BookSlotResponse>('bookSlot', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: slot,
    attendee,
  });
  const id = made.booking!.id!;
  t.deepEqual(await reasonOf('rescheduleBooking', { id, date: '2026-03-05', time: '25:00' }), {
    reason: 'VALIDATION_ERROR',
    field: 'time',
  });
  t.deepEqual(await reasonOf('rescheduleBooking', { id, date: '2026-03-07', time: '10:00' }), {
    reason: 'SLOT_OUTSIDE_AVAILABILITY',
    field: 'time',
  });
  t.deepEqual(await reasonOf('getBooking', { id }, { key: other.key }), { reason: 'FORBIDDEN', field: undefined });
  t.deepEqual(await reasonOf('confirmBooking', { id, token: '' }, { key: null }), {
    reason: 'VALIDATION_ERROR',
    field: 'token',
  });
  t.deepEqual(await reasonOf('cancelBooking', { id }, { key: null }), {
    reason: 'UNAUTHENTICATED',
    field: undefined,
  });
  await unary('cancelBooking', { id });
  t.deepEqual(await reasonOf('cancelBooking', { id }), { reason: 'BOOKING_STATE_CONFLICT', field: undefined });
});

test.serial('an implementation is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db, clock: now } = svc.service.deps;
  const caller = { requestId: 'req_direct', organizationId: o.org.id } as Caller;
  const config = svc.config;
  const listed = await unary<ListBookingsResponse>('listBookings', { pageSize: 2, skip: 1, includeTotal: true });
  t.deepEqual(await listBookings({ db, config }, caller, { pageSize: 2, skip: 1, includeTotal: true }), listed);
  const id = listed.data![0]!.id;
  t.deepEqual(await getBooking({ db, config }, caller, { id }), await unary<GetBookingResponse>('getBooking', { id }));
  const err = await t.throwsAsync(() => getBooking({ db, config }, caller, { id: '' }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'id' });
  const slots = await listSlots({ db, clock: now }, caller, {
    providerId: p.provider.id,
    eventTypeId: p.service.id,
    date: '2026-03-06',
  });
  t.is(slots.slots!.length, 8);
  const elsewhere = await t.throwsAsync(() =>
    getBooking({ db, config }, { ...caller, organizationId: other.org.id }, { id }),
  );
  t.like(elsewhere, { code: 'FORBIDDEN' });
});

test.serial('REST answers what the typed RPCs answer: a read and a write', async (t) => {
  const rest = o.api;
  const slot = await slotOf('2026-03-06', '13:00');
  const made = await rest.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: slot,
    attendee,
    notes: 'via REST',
  });
  t.is(made.status, 200, JSON.stringify(made.body));
  const id = made.body.data.id as string;
  // Both REST reads of a booking answer GetBooking, each in its shape.
  const typed = await unary<GetBookingResponse>('getBooking', { id });
  for (const version of ['v1', 'v2']) {
    const read = route('GET', `/api/${version}/bookings/:id`);
    t.deepEqual(
      JSON.parse(restJsonOf(read, typed as unknown as Record<string, unknown>)),
      (await rest.get(`/api/${version}/bookings/${id}`)).body,
    );
  }
  // v1 page 2 of 2 is ListBookings with `skip` 2, as the gateway asks it.
  const list = await rest.get('/api/v1/bookings?page=2&limit=2');
  const v1List = route('GET', '/api/v1/bookings');
  const asked = requestMessageOf(v1List, { params: {}, query: { page: '2', limit: '2' }, body: undefined });
  t.like(asked as ListBookingsRequest, { pageSize: 2, skip: 2, includeTotal: true });
  const typedList = await unary<ListBookingsResponse>('listBookings', asked);
  t.deepEqual(JSON.parse(restJsonOf(v1List, typedList as unknown as Record<string, unknown>, asked)), list.body);

  // A write: the same cancellation through both doors answers the same JSON (ids and instants aside).
  const twinSlot = await slotOf('2026-03-06', '15:00');
  const twin = await unary<BookSlotResponse>('bookSlot', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: twinSlot,
    attendee,
    notes: 'via gRPC',
  });
  const twinId = twin.booking!.id!;
  t.deepEqual(
    Object.keys(JSON.parse(restJsonOf(route('POST', '/api/v1/bookings'), twin as Record<string, unknown>)).data),
    Object.keys(made.body.data),
    'the same members in the same order',
  );
  const restCancel = await rest.post(`/api/v1/bookings/${id}/cancel`, { reason: 'r' });
  t.is(restCancel.status, 200);
  const typedCancel = await unary<CancelBookingResponse>('cancelBooking', { id: twinId, reason: 'r' });
  t.deepEqual(
    JSON.parse(restJsonOf(route('POST', '/api/v1/bookings/:id/cancel'), typedCancel as Record<string, unknown>)),
    {
      ...restCancel.body,
      bookingId: twinId,
    },
  );
  // The confirmation link answers the same page through the gateway as to a typed call.
  const third = await rest.post('/api/v1/bookings', {
    providerId: p.provider.id,
    serviceId: p.service.id,
    slotId: await slotOf('2026-03-09', '09:00'),
    attendee,
  });
  const link = `/api/v1/bookings/${third.body.data.id}/confirm?token=${third.body.data.tokenToConfirm}`;
  const html = await request(svc.url, 'GET', link);
  t.is(html.status, 200);
  t.regex(html.headers.get('content-type') ?? '', /^text\/html/);
  const typedPage = await unary<ConfirmBookingResponse>(
    'confirmBooking',
    { id: third.body.data.id, token: third.body.data.tokenToConfirm },
    { key: null },
  );
  t.is(typedPage.htmlPage, html.body);
});
