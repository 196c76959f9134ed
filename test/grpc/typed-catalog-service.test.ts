import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, status, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  CatalogServiceClient,
  type CreateServiceResponse,
  type DeleteServiceResponse,
  type GetServiceResponse,
  type ListEventTypesResponse,
  type ListServicesResponse,
  type UpdateServiceResponse,
} from '../../src/gen/scheduling/v1/catalog_service.js';
import { catalogRoutes } from '../../src/contract/routes/catalog-routes.js';
import { responseMessageOf } from '../../src/contract/typed-message.js';
import type { ServiceView } from '../../src/persistence/service-repository.js';
import { deletedServiceMessage, eventTypeMessage, serviceMessage } from '../../src/api/messages/service-message.js';
import { createService } from '../../src/api/catalog-service/create-service.js';
import { getService } from '../../src/api/catalog-service/get-service.js';
import { ServiceError } from '../../src/errors/service-error.js';
import type { Caller } from '../../src/application/caller.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { assertRefusals, bearer, errorInfoOf, unaryCall, type Refusal } from '../helpers/typed-calls.js';

/**
 * CatalogService on its typed messages (src/api/catalog-service/): typed answers, refusals with the contract's code as
 * ErrorInfo reason and the field, an implementation called with its deps alone, the same answers through REST and gRPC,
 * and the explicit mapping of a service (src/api/messages/service-message.ts) equal to the message its REST answer was
 * carried in before the move.
 */

let svc: TestService;
let catalog: CatalogServiceClient;
type Org = Awaited<ReturnType<typeof newOrganization>>;
let a: Org;
let providerA: { id: string };
let foreignService: { id: string };
let foreignProvider: { id: string };
test.before(async () => {
  svc = await startTestService();
  catalog = new CatalogServiceClient(svc.grpcTarget, credentials.createInsecure());
  a = await newOrganization(svc, `tcat-a-${randomUUID().slice(0, 8)}`);
  providerA = (await providerWithService(a, { externalId: 'a1' }, { schedule: null })).provider;
  const b = await newOrganization(svc, `tcat-b-${randomUUID().slice(0, 8)}`);
  const other = await providerWithService(b, { externalId: 'b1' }, { schedule: null });
  foreignService = other.service;
  foreignProvider = other.provider;
});
test.after.always(async () => {
  catalog?.close();
  await svc?.stop();
});

type Method = 'createService' | 'listServices' | 'getService' | 'updateService' | 'deleteService' | 'listEventTypes';

/** Calls a CatalogService method with organization A's key and resolves with its typed answer. */
function unary<Res>(method: Method, req: object): Promise<Res> {
  return unaryCall(catalog, method, req, bearer(a.key));
}

const routeOf = (rpc: string) => catalogRoutes.find((r) => r.rpc === rpc)!;

test('CreateService, GetService, UpdateService, ListServices, ListEventTypes and DeleteService on typed messages', async (t) => {
  const own = (await providerWithService(a, { externalId: 'a2' }, { schedule: null })).provider;
  const created = await unary<CreateServiceResponse>('createService', {
    providerId: own.id,
    title: 'Typed Intake',
    duration: 50,
    price: 12000,
    currency: 'eur',
    modality: 'in_person',
  });
  const service = created.service!;
  t.like(service, {
    providerId: own.id,
    organizationId: a.org.id,
    slug: 'typed-intake',
    duration: 50,
    price: 12000,
    currency: 'EUR',
    modality: 'in-person',
    slotIntervalMinutes: 50,
    minimumNoticeMinutes: 0,
  });
  t.true(service.createdAt instanceof Date);
  t.deepEqual((await unary<GetServiceResponse>('getService', { id: service.id })).service, service);

  // The mask names price, currency and modality unset: they are cleared; duration changes and the interval follows.
  const updated = await unary<UpdateServiceResponse>('updateService', {
    id: service.id,
    duration: 30,
    updateMask: ['duration', 'price', 'currency', 'modality'],
  });
  t.like(updated.service, { duration: 30, slotIntervalMinutes: 30, title: 'Typed Intake' });
  t.is(updated.service!.price, undefined);
  t.is(updated.service!.currency, undefined);
  t.is(updated.service!.modality, undefined);
  // Without a mask, the fields set change; nothing new is no change.
  const same = await unary<UpdateServiceResponse>('updateService', { id: service.id, duration: 30 });
  t.deepEqual(same.service, updated.service);

  const first = await unary<ListServicesResponse>('listServices', { providerId: own.id, pageSize: 1 });
  t.is(first.serviceList!.total, 2);
  t.true(first.serviceList!.hasMore);
  const next = await unary<ListServicesResponse>('listServices', {
    providerId: own.id,
    pageToken: first.serviceList!.nextPageToken,
  });
  t.false(next.serviceList!.hasMore);
  t.is(next.serviceList!.nextPageToken, undefined);
  t.true([...first.serviceList!.data!, ...next.serviceList!.data!].some((s) => s.id === service.id));
  const bySlug = await unary<ListServicesResponse>('listServices', { slug: 'typed-intake' });
  t.deepEqual(bySlug.serviceList!.data, [updated.service]);

  const v1 = await unary<ListEventTypesResponse>('listEventTypes', { providerId: own.id, pageSize: 500 });
  t.deepEqual(
    v1.eventTypeList!.data!.find((e) => e.id === service.id),
    {
      id: service.id,
      providerId: own.id,
      slug: 'typed-intake',
      title: 'Typed Intake',
      length: 30,
      price: undefined,
      currency: undefined,
      modality: undefined,
    },
  );

  const removed = await unary<DeleteServiceResponse>('deleteService', { id: service.id });
  t.deepEqual(removed.deletedService, { ...updated.service, deleted: true });
  const gone = await t.throwsAsync<GrpcError>(() => unary('getService', { id: service.id }));
  t.is(errorInfoOf(gone!).reason, 'SERVICE_NOT_FOUND');
});

const refusals: Refusal[] = [
  {
    name: 'a create without a provider',
    call: () => unary('createService', { title: 'X', duration: 30 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'providerId',
  },
  {
    name: 'a duration out of range',
    call: () => unary('createService', { providerId: providerA.id, title: 'X', duration: 4 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'duration',
  },
  {
    name: 'a price without a currency',
    call: () => unary('createService', { providerId: providerA.id, title: 'X', duration: 30, price: 100 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'currency',
  },
  {
    name: 'another organization’s provider',
    call: () => unary('createService', { providerId: foreignProvider.id, title: 'X', duration: 30 }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'a title whose slug the provider has',
    call: () => unary('createService', { providerId: providerA.id, title: 'intake session', duration: 30 }),
    code: status.ABORTED,
    reason: 'DUPLICATE_EXTERNAL_ID',
    field: 'title',
  },
  {
    name: 'no service id',
    call: () => unary('getService', { id: '' }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'id',
  },
  {
    name: 'an unknown service',
    call: () => unary('getService', { id: 'svc_missing' }),
    code: status.NOT_FOUND,
    reason: 'SERVICE_NOT_FOUND',
  },
  {
    name: 'another organization’s service',
    call: () => unary('deleteService', { id: foreignService.id }),
    code: status.PERMISSION_DENIED,
    reason: 'FORBIDDEN',
  },
  {
    name: 'an update mask naming the provider, which cannot be changed',
    call: () => unary('updateService', { id: foreignService.id, updateMask: ['provider_id'] }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'updateMask',
  },
  {
    name: 'an update clearing the duration, which takes no null',
    call: async () => {
      const s = await unary<ListServicesResponse>('listServices', { providerId: providerA.id });
      return unary('updateService', { id: s.serviceList!.data![0]!.id, updateMask: ['duration'] });
    },
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'duration',
  },
  {
    name: 'a page size out of range, named as REST names it',
    call: () => unary('listServices', { pageSize: 501 }),
    code: status.INVALID_ARGUMENT,
    reason: 'VALIDATION_ERROR',
    field: 'limit',
  },
  {
    name: 'an unknown provider filter',
    call: () => unary('listEventTypes', { providerId: 'prv_missing' }),
    code: status.NOT_FOUND,
    reason: 'PROVIDER_NOT_FOUND',
  },
];
assertRefusals(test, 'a typed CatalogService request is refused with ErrorInfo', refusals);

test('CreateService and GetService are functions of their dependencies, the caller and the typed request', async (t) => {
  const { db, clock } = svc.service.deps;
  const caller = {
    requestId: 'req_direct',
    keyId: 'key_direct',
    keyType: 'organization_live',
    mode: 'live',
    platformId: a.org.platformId,
    organizationId: a.org.id,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  } as Caller;
  const created = await createService({ db, clock }, caller, {
    providerId: providerA.id,
    title: 'Direct Session',
    duration: 45,
  });
  const read = await getService({ db }, caller, { id: created.service!.id });
  t.deepEqual(read.service, created.service);
  const err = await t.throwsAsync(() =>
    createService({ db, clock }, caller, { providerId: providerA.id, title: '!!!', duration: 3 }),
  );
  t.true(err instanceof ServiceError);
  t.like(err, { code: 'VALIDATION_ERROR', field: 'title' });
  t.deepEqual(
    (err as ServiceError).details?.map((d) => d.field),
    ['title', 'duration'],
  );
});

test('REST and gRPC answer the same: a read of a service written through REST, a write read back through REST', async (t) => {
  const own = (await providerWithService(a, { externalId: 'a3' }, { schedule: null })).provider;
  const restCreated = await a.api.post('/api/v2/services', {
    providerId: own.id,
    title: 'Parity One',
    duration: 40,
    price: 900,
    currency: 'usd',
  });
  t.is(restCreated.status, 200);
  const typedRead = await unary<GetServiceResponse>('getService', { id: restCreated.body.id });
  t.deepEqual(typedRead, responseMessageOf(routeOf('GetService'), restCreated.body));

  const typedWrite = await unary<UpdateServiceResponse>('updateService', {
    id: restCreated.body.id,
    title: 'Parity Two',
    bufferAfterMinutes: 10,
  });
  const restRead = await a.api.get(`/api/v2/services/${restCreated.body.id}`);
  t.like(restRead.body, { title: 'Parity Two', slug: 'parity-two', bufferAfterMinutes: 10, modality: null });
  t.deepEqual(typedWrite, responseMessageOf(routeOf('UpdateService'), restRead.body));
  const restList = await a.api.get(`/api/v1/event-types?providerId=${own.id}&limit=500`);
  const typedList = await unary<ListEventTypesResponse>('listEventTypes', { providerId: own.id, pageSize: 500 });
  t.deepEqual(typedList, responseMessageOf(routeOf('ListEventTypes'), restList.body));
});

test('a service maps to the messages its REST answers were carried in before the move', (t) => {
  const views: ServiceView[] = [
    {
      id: 'svc_1',
      organizationId: 'org_1',
      providerId: 'prv_1',
      title: 'Intake',
      slug: 'intake',
      duration: 60,
      price: null,
      currency: null,
      modality: null,
      slotIntervalMinutes: 60,
      minimumNoticeMinutes: 0,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      createdAt: '2026-03-02T12:00:00.000Z',
      updatedAt: '2026-03-02T12:00:00.000Z',
    },
    {
      id: 'svc_2',
      organizationId: 'org_1',
      providerId: 'prv_1',
      title: 'Follow-up',
      slug: 'follow-up',
      duration: 30,
      price: 0,
      currency: 'EUR',
      modality: 'in-person',
      slotIntervalMinutes: 15,
      minimumNoticeMinutes: 1440,
      bufferBeforeMinutes: 5,
      bufferAfterMinutes: 10,
      createdAt: '2026-03-02T12:00:00.000Z',
      updatedAt: '2026-03-03T08:30:00.123Z',
    },
  ];
  for (const v of views) {
    t.deepEqual({ service: serviceMessage(v) }, responseMessageOf(routeOf('GetService'), v), v.id);
    t.deepEqual(
      { deletedService: deletedServiceMessage(v) },
      responseMessageOf(routeOf('DeleteService'), { ...v, deleted: true }),
      v.id,
    );
    // What the removed operation answered in v1 (toEventTypeV1).
    const v1 = {
      id: v.id,
      providerId: v.providerId,
      slug: v.slug,
      title: v.title,
      length: v.duration,
      price: v.price,
      currency: v.currency,
      modality: v.modality,
    };
    const list = responseMessageOf(routeOf('ListEventTypes'), {
      data: [v1],
      total: 1,
      hasMore: false,
      nextCursor: null,
    });
    t.deepEqual((list.eventTypeList as { data: unknown[] }).data, [eventTypeMessage(v)], v.id);
  }
});
