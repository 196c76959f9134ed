import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import {
  EventServiceClient,
  type GetEventResponse,
  type ListEventsResponse,
} from '../../src/gen/scheduling/v1/event_service.js';
import { KeyMode } from '../../src/gen/scheduling/v1/resources.js';
import { eventRoutes } from '../../src/contract/routes/event-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import { eventEnvelope } from '../../src/persistence/event-outbox.js';
import type { EventRow } from '../../src/persistence/event-repository.js';
import { eventMessage } from '../../src/api/messages/event-message.js';
import { getEvent } from '../../src/api/event-service/get-event.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { assertRefusals, bearer, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * EventService on its typed messages (src/api/event-service/): typed answers with the event's data as the EventData
 * case its type names, refusals with the contract's code as ErrorInfo reason and the field, and the explicit mapping of
 * every event type's stored data (src/api/messages/event-message.ts) equal to the message the REST answer was carried
 * in before the move, so REST answers stay as they were.
 */

let svc: TestService;
let events: EventServiceClient;
let orgId: string;
let otherOrgEventId: string;
test.before(async () => {
  svc = await startTestService();
  events = new EventServiceClient(svc.grpcTarget, credentials.createInsecure());
  const newOrg = async () => {
    const org = await client(svc.url, svc.platformKey).post('/api/v2/organizations', {
      externalId: `tev-${randomUUID().slice(0, 8)}`,
      name: 'Typed Events',
    });
    const c = client(svc.url, svc.platformKey, { 'service-organization-id': org.body.id });
    for (const externalId of ['a', 'b']) {
      const p = await c.post('/api/v2/providers', { externalId, displayName: `Dr. ${externalId}` });
      if (p.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(p.body)}`);
    }
    return { id: org.body.id as string, c };
  };
  orgId = (await newOrg()).id;
  const other = await newOrg();
  otherOrgEventId = (await other.c.get('/api/v2/events')).body.data[0].id;
});
test.after.always(async () => {
  events?.close();
  await svc?.stop();
});

const metadata = () => bearer(svc.platformKey, { 'service-organization-id': orgId });

function unary<Res>(method: 'listEvents' | 'getEvent', req: object): Promise<Res> {
  return unaryCall(events, method, req, metadata());
}

test('ListEvents and GetEvent answer typed events, page by page, with the data case their type names', async (t) => {
  const first = await unary<ListEventsResponse>('listEvents', { pageSize: 1, keyMode: KeyMode.KEY_MODE_TEST });
  t.is(first.data?.length, 1);
  t.true(first.hasMore);
  t.truthy(first.nextPageToken);
  const next = await unary<ListEventsResponse>('listEvents', { pageSize: 500, pageToken: first.nextPageToken });
  t.false(next.hasMore);
  t.is(next.nextPageToken, undefined);
  t.deepEqual(
    [...first.data!, ...next.data!].map((e) => e.eventData?.kind?.$case),
    ['professionalCreated', 'professionalCreated'],
  );
  const live = await unary<ListEventsResponse>('listEvents', { keyMode: KeyMode.KEY_MODE_LIVE });
  t.deepEqual(live.data, [], 'the events were caused with a test key');

  const one = await unary<GetEventResponse>('getEvent', { id: first.data![0]!.id });
  t.deepEqual(one.event, first.data![0]);
  t.true(one.event!.createdAt instanceof Date);
  t.is(one.event!.organizationId, orgId);
  t.like(one.event!.eventData, {
    kind: { $case: 'professionalCreated', value: { externalId: 'b', profileVersion: 1 } },
  });
});

const refusals: Refusal[] = [
  {
    name: 'an event type the contract does not know',
    call: () => unary('listEvents', { type: 'booking.exploded' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'type',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listEvents', { pageSize: 0 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'a page token this service did not issue',
    call: () => unary('listEvents', { pageToken: '!!!' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'cursor',
  },
  {
    name: 'no event id',
    call: () => unary('getEvent', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'an unknown event',
    call: () => unary('getEvent', { id: 'evt_missing' }),
    code: status.NOT_FOUND,
    reason: 'EVENT_NOT_FOUND',
  },
  {
    name: 'another organization’s event',
    call: () => unary('getEvent', { id: otherOrgEventId }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
];
assertRefusals(test, 'a typed EventService request is refused with ErrorInfo', refusals);

test('GetEvent is a function of its dependencies, the caller and the typed request', async (t) => {
  const { db, clock } = svc.service.deps;
  const listed = await unary<ListEventsResponse>('listEvents', {});
  const caller = { requestId: 'req_direct', organizationId: orgId } as Caller;
  const read = await getEvent({ db, clock }, caller, { id: listed.data![0]!.id });
  t.deepEqual(read.event, listed.data![0]);
  const err = await t.throwsAsync(() => getEvent({ db, clock }, caller, { id: '' }));
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'id' });
});

/** A stored data sample of every event type, with the nulls and left-out members the contract allows. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  'professional.created': { providerId: 'prv_1', externalId: 'x', profileVersion: 1 },
  'professional.updated': { providerId: 'prv_1', externalId: 'x', profileVersion: 4 },
  'provider_import.completed': {
    importId: 'imp_1',
    summary: { received: 5, created: 1, updated: 1, unchanged: 1, invalid: 1, deactivated: 1 },
  },
  'resolution.resolved': { resolutionId: 'res_1', status: 'resolved', optionsReturned: 3, requestId: 'req_1' },
  'resolution.zero_results': { resolutionId: 'res_1', status: 'zero_results', optionsReturned: 0, requestId: 'req_1' },
  'resolution.partial': {
    resolutionId: 'res_1',
    status: 'zero_results',
    optionsReturned: 0,
    requestId: 'req_1',
    unknownProviders: 2,
  },
  'option.held': {
    resolutionId: 'res_1',
    optionId: 'opt_1',
    holdId: 'hld_1',
    expiresAt: '2026-03-02T12:02:00.000Z',
    reason: 'held',
  },
  'option.released': {
    resolutionId: 'res_1',
    optionId: 'opt_1',
    holdId: 'hld_1',
    releasedAt: '2026-03-02T12:02:00.000Z',
    reason: 'expired',
  },
  'booking.confirmed': {
    bookingId: 'bkg_1',
    resolutionId: null,
    providerId: 'prv_1',
    slot: { start: '2026-03-03T09:00:00.000Z', end: '2026-03-03T09:30:00.000Z', timezone: 'Europe/Paris' },
    status: 'confirmed',
  },
  'booking.rescheduled': {
    bookingId: 'bkg_1',
    resolutionId: 'res_1',
    providerId: 'prv_1',
    slot: { start: '2026-03-03T09:00:00.000Z', end: '2026-03-03T09:30:00.000Z', timezone: 'UTC' },
    status: 'rescheduled',
    rescheduledFrom: 'bkg_0',
    rescheduledTo: 'bkg_2',
  },
  'booking.cancelled': {
    bookingId: 'bkg_1',
    resolutionId: 'res_1',
    providerId: 'prv_1',
    slot: { start: '2026-03-03T09:00:00.000Z', end: '2026-03-03T09:30:00.000Z', timezone: 'UTC' },
    status: 'cancelled',
    cancelledAt: '2026-03-02T13:00:00.000Z',
    reason: null,
  },
  'booking.completed': {
    bookingId: 'bkg_1',
    resolutionId: 'res_1',
    providerId: 'prv_1',
    slot: { start: '2026-03-03T09:00:00.000Z', end: '2026-03-03T09:30:00.000Z', timezone: 'UTC' },
    status: 'completed',
    rescheduledFrom: 'bkg_0',
  },
  'calendar.connection_degraded': { providerId: 'prv_1', calendarConnectionId: 'cal_1', reason: 'HTTP 500' },
  'calendar.reconnect_required': { providerId: 'prv_1', calendarConnectionId: 'cal_1', reason: 'HTTP 401' },
  'waitlist.offered': {
    entryId: 'wle_1',
    resolutionId: 'res_1',
    holdId: 'hld_1',
    optionId: 'opt_1',
    providerId: 'prv_1',
    slotStart: '2026-03-03T09:00:00.000Z',
    expiresAt: '2026-03-02T12:15:00.000Z',
  },
  'waitlist.booked': { entryId: 'wle_1', resolutionId: 'res_1', holdId: 'hld_1', bookingId: 'bkg_1' },
};

test('every event type maps to the message its REST answer was carried in before the move', (t) => {
  const route = eventRoutes.find((r) => r.rpc === 'GetEvent')!;
  for (const [type, data] of Object.entries(SAMPLES)) {
    const row: EventRow = {
      id: 'evt_1',
      type,
      api_version: '2026-11-01',
      created_at: new Date('2026-03-02T12:00:00.000Z'),
      organization_id: 'org_1',
      mode: 'live',
      data,
      attempt: 2,
    };
    const before = responseMessageOf(route, eventEnvelope(row, row.attempt));
    t.deepEqual({ event: eventMessage(row) }, before, type);
    t.not(eventMessage(row).eventData?.kind, undefined, `${type} sets its case`);
  }
});
