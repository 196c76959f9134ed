import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  CalendarServiceClient,
  type CreateCalendarConnectionResponse,
  type DeleteCalendarConnectionResponse,
  type GetCalendarConnectionResponse,
  type ListCalendarConnectionsResponse,
  type UpdateCalendarConnectionResponse,
} from '../../src/gen/scheduling/v1/calendar_service.js';
import { calendarRoutes } from '../../src/contract/routes/calendar-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { createCalendarConnection } from '../../src/api/calendar-service/create-calendar-connection.js';
import { getCalendarConnection } from '../../src/api/calendar-service/get-calendar-connection.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * CalendarService on its typed messages (src/api/calendar-service/): typed schedules in and out, refusals with the
 * contract's code as ErrorInfo reason and the field (schedule problems included), implementations callable with their
 * deps alone, and the REST door answering the same connection as the typed one.
 */

let svc: TestService;
let calendars: CalendarServiceClient;
let orgId: string;
let platformId: string;
let providerId: string;
let otherProviderId: string;
let otherConnectionId: string;

test.before(async () => {
  // Feed URLs here name hosts that do not resolve: the switch skips the address check (tested in test/security).
  svc = await startTestService({ env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
  calendars = new CalendarServiceClient(svc.grpcTarget, credentials.createInsecure());
  const newOrg = async () => {
    const org = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
      externalId: `tcal-${randomUUID().slice(0, 8)}`,
      name: 'Typed Calendars',
    });
    const c = client(svc.url, svc.platformKey, { 'service-organization-id': org.body.id });
    const p = await c.post('/api/v2/providers', { externalId: 'p', displayName: 'Dr. P' });
    if (p.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(p.body)}`);
    return { id: org.body.id as string, platformId: org.body.platformId as string, providerId: p.body.id as string, c };
  };
  ({ id: orgId, platformId, providerId } = await newOrg());
  const other = await newOrg();
  otherProviderId = other.providerId;
  otherConnectionId = (
    await other.c.post('/api/v2/calendar-connections', {
      providerId: other.providerId,
      timezone: 'UTC',
      days: { monday: { enabled: true, slots: [{ start: '09:00', end: '10:00' }] } },
    })
  ).body.id;
});
test.after.always(async () => {
  calendars?.close();
  await svc?.stop();
});

const metadata = () => bearer(svc.platformKey, { 'service-organization-id': orgId });

type Method =
  | 'createCalendarConnection'
  | 'listCalendarConnections'
  | 'getCalendarConnection'
  | 'updateCalendarConnection'
  | 'deleteCalendarConnection';

function unary<Res>(method: Method, req: object): Promise<Res> {
  return unaryCall(calendars, method, req, metadata());
}

const closed = { enabled: false, slots: [] };
const monday = { enabled: true, slots: [{ start: '09:00', end: '12:00' }] };

test('Create, Get, List, Update and Delete a calendar connection on typed messages', async (t) => {
  // A provider of its own: the other tests of this file add connections meanwhile.
  const own = await client(svc.url, svc.platformKey, { 'service-organization-id': orgId }).post('/api/v2/providers', {
    externalId: 'crud',
    displayName: 'Dr. Crud',
  });
  const providerId = own.body.id as string;
  const created = await unary<CreateCalendarConnectionResponse>('createCalendarConnection', {
    providerId,
    title: 'Mornings',
    timezone: 'Europe/Paris',
    days: { monday },
    overrides: [{ date: '2026-12-24', slots: [] }],
    externalCalendar: { type: 'ics', url: 'http://127.0.0.1:9/a.ics' },
  });
  const c = created.calendarConnection!;
  t.regex(c.id!, /^cal_/);
  t.true(c.createdAt instanceof Date);
  t.like(c, { organizationId: orgId, providerId, title: 'Mornings', timezone: 'Europe/Paris', status: 'active' });
  t.deepEqual(c.days, {
    monday,
    tuesday: closed,
    wednesday: closed,
    thursday: closed,
    friday: closed,
    saturday: closed,
    sunday: closed,
  });
  t.deepEqual(c.overrides, [{ date: '2026-12-24', slots: [] }]);
  t.deepEqual(c.externalCalendar, { type: 'ics', url: 'http://127.0.0.1:9/a.ics' });

  const read = await unary<GetCalendarConnectionResponse>('getCalendarConnection', { id: c.id });
  t.deepEqual(read.calendarConnection, c);
  const listed = await unary<ListCalendarConnectionsResponse>('listCalendarConnections', { providerId, pageSize: 1 });
  t.deepEqual(listed.calendarConnectionList, { data: [c], total: 1, hasMore: false, nextPageToken: undefined });

  svc.clock.advance(1_000);
  // The mask names what changes: title and externalCalendar named and unset are cleared; overrides left alone.
  const updated = await unary<UpdateCalendarConnectionResponse>('updateCalendarConnection', {
    id: c.id,
    updateMask: ['title', 'external_calendar', 'days'],
    days: { friday: { enabled: true, slots: [{ start: '14:00', end: '18:00' }] } },
  });
  const u = updated.calendarConnection!;
  t.is(u.title, undefined);
  t.is(u.externalCalendar, undefined);
  t.deepEqual(u.overrides, c.overrides);
  t.deepEqual(u.days?.monday, monday, 'a weekday not given keeps its windows');
  t.deepEqual(u.days?.friday, { enabled: true, slots: [{ start: '14:00', end: '18:00' }] });
  t.true(u.updatedAt!.getTime() > c.updatedAt!.getTime());
  // Without a mask, the fields set change.
  const retimed = await unary<UpdateCalendarConnectionResponse>('updateCalendarConnection', {
    id: c.id,
    timezone: 'UTC',
  });
  t.like(retimed.calendarConnection, { timezone: 'UTC', title: undefined });

  const deleted = await unary<DeleteCalendarConnectionResponse>('deleteCalendarConnection', { id: c.id });
  t.deepEqual(deleted.deletedCalendarConnection, { ...retimed.calendarConnection, deleted: true });
  const gone = await t.throwsAsync<GrpcError>(() => unary('getCalendarConnection', { id: c.id }));
  t.is(gone!.code, status.NOT_FOUND);
});

const valid = () => ({ providerId, timezone: 'UTC', days: { monday } });
const refusals: Refusal[] = [
  {
    name: 'no provider',
    call: () => unary('createCalendarConnection', { ...valid(), providerId: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'providerId',
  },
  {
    name: 'a time zone that is none',
    call: () => unary('createCalendarConnection', { ...valid(), timezone: 'Mars/Olympus_Mons' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'timezone',
  },
  {
    name: 'overlapping windows, a schedule problem',
    call: () =>
      unary('createCalendarConnection', {
        ...valid(),
        days: {
          monday: {
            enabled: true,
            slots: [
              { start: '09:00', end: '12:00' },
              { start: '11:00', end: '13:00' },
            ],
          },
        },
      }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'days.monday.slots.1',
  },
  {
    name: 'a day without `enabled`',
    call: () => unary('createCalendarConnection', { ...valid(), days: { tuesday: { slots: [] } } }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'days.tuesday.enabled',
  },
  {
    name: 'a feed URL that is no http(s) URL',
    call: () =>
      unary('createCalendarConnection', { ...valid(), externalCalendar: { type: 'ics', url: 'ftp://x.example/a' } }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'externalCalendar.url',
  },
  {
    name: 'an unknown provider',
    call: () => unary('createCalendarConnection', { ...valid(), providerId: 'prv_missing' }),
    code: status.NOT_FOUND,
    reason: 'PROVIDER_NOT_FOUND',
  },
  {
    name: 'another organization’s provider',
    call: () => unary('createCalendarConnection', { ...valid(), providerId: otherProviderId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listCalendarConnections', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'no connection id',
    call: () => unary('getCalendarConnection', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'an unknown connection',
    call: () => unary('getCalendarConnection', { id: 'cal_missing' }),
    code: status.NOT_FOUND,
    reason: 'CALENDAR_CONNECTION_NOT_FOUND',
  },
  {
    name: 'another organization’s connection, whatever the update says',
    call: () => unary('updateCalendarConnection', { id: otherConnectionId, timezone: 'not/a-zone' }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'an update mask naming the provider, which cannot change',
    call: () => unary('updateCalendarConnection', { id: otherConnectionId, updateMask: ['provider_id'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'updateMask',
  },
  {
    name: 'a time zone named by the mask and unset (it cannot be cleared)',
    call: async () => {
      const id = (await unary<CreateCalendarConnectionResponse>('createCalendarConnection', valid()))
        .calendarConnection!.id;
      return unary('updateCalendarConnection', { id, updateMask: ['timezone'] });
    },
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'timezone',
  },
  {
    name: 'another organization’s connection deleted',
    call: () => unary('deleteCalendarConnection', { id: otherConnectionId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
];
assertRefusals(test, 'a typed CalendarService request is refused with ErrorInfo', refusals, { domain: false });

test('Create and Get are functions of their dependencies, the caller and the typed request', async (t) => {
  const { db, clock, config } = svc.service.deps;
  const caller = { requestId: 'req_direct', organizationId: orgId, platformId } as Caller;
  const created = await createCalendarConnection({ db, clock, config }, caller, {
    providerId,
    timezone: 'Asia/Tokyo',
    days: { sunday: { enabled: true, slots: [{ start: '10:00', end: '11:00' }] } },
  });
  const read = await getCalendarConnection({ db }, caller, { id: created.calendarConnection!.id });
  t.deepEqual(read.calendarConnection, created.calendarConnection);
  const err = await t.throwsAsync(() =>
    createCalendarConnection({ db, clock, config }, caller, {
      providerId,
      timezone: 'UTC',
      days: { monday: { enabled: true, slots: [{ start: '10:00', end: '09:00' }] } },
      overrides: [
        { date: '2026-03-01', slots: [] },
        { date: '2026-03-01', slots: [] },
      ],
    }),
  );
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'days.monday.slots.0.end' });
  t.deepEqual(
    (err as ServiceError).details?.map((d) => d.field),
    ['days.monday.slots.0.end', 'overrides.1.date'],
  );
});

test('REST parity: the REST door answers the connection the typed one does, for a write and a read', async (t) => {
  const rest = client(svc.url, svc.platformKey, { 'service-organization-id': orgId });
  const route = (rpc: string) => calendarRoutes.find((r) => r.rpc === rpc)!;
  // A write through REST, read back typed.
  const posted = await rest.post('/api/v2/calendar-connections', {
    providerId,
    title: 'Parity',
    timezone: 'America/New_York',
    days: { wednesday: { enabled: true, slots: [{ start: '10:00', end: '24:00' }] } },
  });
  t.is(posted.status, 200);
  const typed = await unary<GetCalendarConnectionResponse>('getCalendarConnection', { id: posted.body.id });
  t.deepEqual(responseMessageOf(route('CreateCalendarConnection'), posted.body), typed);
  // A write typed (clearing the title), read back through REST.
  const patched = await unary<UpdateCalendarConnectionResponse>('updateCalendarConnection', {
    id: posted.body.id,
    updateMask: ['title'],
  });
  const got = await rest.get(`/api/v2/calendar-connections/${posted.body.id}`);
  t.is(got.status, 200);
  t.is(got.body.title, null, 'an unset title is REST null');
  t.deepEqual(responseMessageOf(route('GetCalendarConnection'), got.body), patched);
});
