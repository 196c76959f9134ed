import test from 'ava';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, type ServiceError as GrpcError } from '@grpc/grpc-js';
import {
  CatalogServiceClient,
  type DeleteServiceResponse,
  type UpdateServiceResponse,
} from '../../src/gen/scheduling/v1/catalog_service.js';
import { decodeServiceError } from '../../src/grpc/error-metadata.js';
import { restOfResponse, typedRequest } from '../helpers/typed-messages.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

/** PATCH and DELETE /api/v2/services/:id (issue 25 item 3): changes, refusals, and what resolutions and bookings see. */

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const MINUTE = 60_000;
type Org = Awaited<ReturnType<typeof newOrganization>>;

const graphVersion = async (o: Org) =>
  (await o.platform.get(`/api/v2/organizations/${o.org.id}`)).body.providerGraphVersion as number;
const auditOf = async (id: string, action: string) =>
  (
    await svc.service.deps.db.query(
      'SELECT action, resource_type, before, after FROM audit_events WHERE resource_id = $1 AND action = $2',
      [id, action],
    )
  ).rows;
const resolve = (o: Org, serviceId: string, from = '2026-03-03', to = '2026-03-04') =>
  o.api.post('/api/v2/resolutions', { serviceId, dateRange: { from, to } }, idem());

test('PATCH changes the fields sent, derives a new slug from a new title, bumps the graph version once and is audited', async (t) => {
  const o = await newOrganization(svc, `svc-patch-${randomUUID().slice(0, 8)}`);
  const { service } = await providerWithService(o, { externalId: 'p1' }, { schedule: null });
  const v0 = await graphVersion(o);
  clock.advance(1000);
  const r = await o.api.patch(`/api/v2/services/${service.id}`, {
    title: 'Follow-up Visit',
    duration: 45,
    price: 9900,
    currency: 'eur',
    modality: 'in_person',
  });
  t.is(r.status, 200, JSON.stringify(r.body));
  t.like(r.body, {
    id: service.id,
    providerId: service.providerId,
    title: 'Follow-up Visit',
    slug: 'follow-up-visit',
    duration: 45,
    price: 9900,
    currency: 'EUR',
    modality: 'in-person',
    // It equalled the old duration (the default), so it follows the new one.
    slotIntervalMinutes: 45,
    createdAt: service.createdAt,
    updatedAt: clock().toISOString(),
  });
  t.is(await graphVersion(o), v0 + 1);
  t.deepEqual((await o.api.get(`/api/v2/services/${service.id}`)).body, r.body);
  const audit = await auditOf(service.id, 'service.update');
  t.is(audit.length, 1);
  t.like(audit[0], {
    resource_type: 'service',
    before: { title: 'Intake Session' },
    after: { slug: 'follow-up-visit' },
  });

  // null clears price, currency and modality; the slot interval, once set apart from the duration, stays.
  const set = await o.api.patch(`/api/v2/services/${service.id}`, { slotIntervalMinutes: 15 });
  t.is(set.body.slotIntervalMinutes, 15);
  const cleared = await o.api.patch(`/api/v2/services/${service.id}`, {
    price: null,
    currency: null,
    modality: null,
    duration: 30,
  });
  t.is(cleared.status, 200, JSON.stringify(cleared.body));
  t.like(cleared.body, { price: null, currency: null, modality: null, duration: 30, slotIntervalMinutes: 15 });
  const back = await o.api.patch(`/api/v2/services/${service.id}`, { slotIntervalMinutes: null });
  t.is(back.body.slotIntervalMinutes, 30, 'null sets the interval back to the duration');
  t.is(await graphVersion(o), v0 + 4);
});

test('a PATCH that changes nothing answers the service as it is: no graph version, no audit event', async (t) => {
  const o = await newOrganization(svc, `svc-same-${randomUUID().slice(0, 8)}`);
  const { service } = await providerWithService(o, { externalId: 'p1' }, { schedule: null });
  const v0 = await graphVersion(o);
  for (const body of [{}, { title: service.title, duration: service.duration, price: null, modality: null }]) {
    const r = await o.api.patch(`/api/v2/services/${service.id}`, body);
    t.is(r.status, 200);
    t.deepEqual(r.body, service);
  }
  t.is(await graphVersion(o), v0);
  t.is((await auditOf(service.id, 'service.update')).length, 0);
});

test('bad PATCH bodies are 400 VALIDATION_ERROR naming the field, and change nothing', async (t) => {
  const o = await newOrganization(svc, `svc-bad-${randomUUID().slice(0, 8)}`);
  const { service, provider } = await providerWithService(o, { externalId: 'p1' }, { schedule: null });
  const priced = (
    await o.api.post('/api/v2/services', {
      providerId: provider.id,
      title: 'Priced',
      duration: 50,
      price: 100,
      currency: 'USD',
    })
  ).body;
  const v0 = await graphVersion(o);
  const cases: [string, unknown, string][] = [
    [service.id, { duration: 2 }, 'duration'],
    [service.id, { duration: 1441 }, 'duration'],
    [service.id, { duration: 30.5 }, 'duration'],
    [service.id, { duration: null }, 'duration'],
    [service.id, { title: '' }, 'title'],
    [service.id, { title: '!!!' }, 'title'],
    [service.id, { title: 'x'.repeat(201) }, 'title'],
    [service.id, { price: -1, currency: 'USD' }, 'price'],
    [service.id, { price: 100 }, 'currency'],
    [service.id, { price: 100, currency: 'US' }, 'currency'],
    [service.id, { modality: 'phone' }, 'modality'],
    [service.id, { slotIntervalMinutes: 3 }, 'slotIntervalMinutes'],
    [service.id, { minimumNoticeMinutes: -1 }, 'minimumNoticeMinutes'],
    [service.id, { bufferAfterMinutes: 1441 }, 'bufferAfterMinutes'],
    [service.id, { providerId: provider.id }, 'providerId'],
    [priced.id, { currency: null }, 'currency'],
  ];
  for (const [id, body, field] of cases) {
    const r = await o.api.patch(`/api/v2/services/${id}`, body);
    t.is(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, field, JSON.stringify(body));
  }
  const raw = await fetch(`${svc.url}/api/v2/services/${service.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${o.key}`, 'content-type': 'application/json' },
    body: '{"title":',
  });
  t.is(raw.status, 400);
  t.is(((await raw.json()) as any).error.code, 'INVALID_JSON');
  t.deepEqual((await o.api.get(`/api/v2/services/${service.id}`)).body, service);
  t.is(await graphVersion(o), v0);
});

test('a title whose slug the provider already has is 409 DUPLICATE_EXTERNAL_ID on title; another provider may have it', async (t) => {
  const o = await newOrganization(svc, `svc-dup-${randomUUID().slice(0, 8)}`);
  const a = await providerWithService(o, { externalId: 'a' }, { schedule: null });
  const b = await providerWithService(o, { externalId: 'b' }, { schedule: null, title: 'Other' });
  const second = (await o.api.post('/api/v2/services', { providerId: a.provider.id, title: 'Second', duration: 30 }))
    .body;
  const r = await o.api.patch(`/api/v2/services/${second.id}`, { title: 'intake  session!' });
  t.is(r.status, 409);
  t.like(r.body.error, { code: 'DUPLICATE_EXTERNAL_ID', field: 'title' });
  t.is((await o.api.get(`/api/v2/services/${second.id}`)).body.slug, 'second');
  // A concurrent rename that passes the check meets the unique index; service-repository.ts names its constraint.
  const unique = await svc.service.deps.db.query(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'services'::regclass AND contype = 'u'`,
  );
  t.deepEqual(
    unique.rows.map((x) => x.conname),
    ['services_provider_id_slug_key'],
  );
  const ok = await o.api.patch(`/api/v2/services/${b.service.id}`, { title: 'Intake Session' });
  t.is(ok.status, 200);
  t.is(ok.body.slug, 'intake-session');
});

test('unknown ids are 404 SERVICE_NOT_FOUND; another organization’s service is 403 FORBIDDEN and stays as it was', async (t) => {
  const a = await newOrganization(svc, `svc-ten-a-${randomUUID().slice(0, 8)}`);
  const b = await newOrganization(svc, `svc-ten-b-${randomUUID().slice(0, 8)}`);
  const { service } = await providerWithService(b, { externalId: 'b1' }, { schedule: null });
  for (const r of [
    await a.api.patch('/api/v2/services/svc_nope', { title: 'X' }),
    await a.api.delete('/api/v2/services/svc_nope'),
  ]) {
    t.is(r.status, 404);
    t.like(r.body.error, { code: 'SERVICE_NOT_FOUND', status: 404 });
    t.truthy(r.body.error.requestId);
  }
  const vB = await graphVersion(b);
  for (const r of [
    await a.api.patch(`/api/v2/services/${service.id}`, { title: 'Taken Over' }),
    // The id decides before the body: even a bad body is 403.
    await a.api.patch(`/api/v2/services/${service.id}`, { duration: 1 }),
    await a.api.delete(`/api/v2/services/${service.id}`),
  ]) {
    t.is(r.status, 403);
    t.is(r.body.error.code, 'FORBIDDEN');
  }
  t.deepEqual((await b.api.get(`/api/v2/services/${service.id}`)).body, service);
  t.is(await graphVersion(b), vB);
});

test('resolutions made after a PATCH use the new duration', async (t) => {
  const o = await newOrganization(svc, `svc-dur-${randomUUID().slice(0, 8)}`);
  const { service } = await providerWithService(o, { externalId: 'p1' }, { duration: 60 });
  const before = await resolve(o, service.id);
  t.is(before.status, 200, JSON.stringify(before.body));
  const span = (opt: any) => (Date.parse(opt.slot.end) - Date.parse(opt.slot.start)) / MINUTE;
  t.true(before.body.options.length > 0);
  t.true(before.body.options.every((opt: any) => span(opt) === 60));
  t.is((await o.api.patch(`/api/v2/services/${service.id}`, { duration: 90 })).status, 200);
  const after = await resolve(o, service.id);
  t.is(after.status, 200, JSON.stringify(after.body));
  t.true(after.body.options.length > 0);
  t.true(
    after.body.options.every((opt: any) => span(opt) === 90),
    JSON.stringify(after.body.options.map((x: any) => x.slot)),
  );
  t.true(after.body.graphVersion === undefined || after.body.graphVersion > (before.body.graphVersion ?? -1));
});

test('DELETE removes the service: answered with deleted true, then 404, unlisted, audited, graph version +1, slug free', async (t) => {
  const o = await newOrganization(svc, `svc-del-${randomUUID().slice(0, 8)}`);
  const { service, provider } = await providerWithService(o, { externalId: 'p1' }, { schedule: null });
  const v0 = await graphVersion(o);
  const r = await o.api.delete(`/api/v2/services/${service.id}`);
  t.is(r.status, 200, JSON.stringify(r.body));
  t.deepEqual(r.body, { ...service, deleted: true });
  t.is(await graphVersion(o), v0 + 1);
  const audit = await auditOf(service.id, 'service.delete');
  t.is(audit.length, 1);
  t.like(audit[0], { resource_type: 'service', before: { id: service.id }, after: null });
  for (const again of [
    await o.api.get(`/api/v2/services/${service.id}`),
    await o.api.patch(`/api/v2/services/${service.id}`, { title: 'Back' }),
    await o.api.delete(`/api/v2/services/${service.id}`),
  ]) {
    t.is(again.status, 404);
    t.is(again.body.error.code, 'SERVICE_NOT_FOUND');
  }
  t.is(await graphVersion(o), v0 + 1, 'refused calls after the removal change nothing');
  t.deepEqual((await o.api.get(`/api/v2/services?providerId=${provider.id}`)).body, {
    data: [],
    total: 0,
    hasMore: false,
    nextCursor: null,
  });
  t.is((await o.api.get(`/api/v1/event-types?providerId=${provider.id}`)).body.total, 0);
  // The slug is free again: the same title makes a new service with a new id.
  const again = await o.api.post('/api/v2/services', { providerId: provider.id, title: service.title, duration: 30 });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.is(again.body.slug, service.slug);
  t.not(again.body.id, service.id);
});

test('after DELETE resolutions no longer offer the service; other providers of its session type still do', async (t) => {
  const o = await newOrganization(svc, `svc-del-res-${randomUUID().slice(0, 8)}`);
  const a = await providerWithService(o, { externalId: 'a' });
  const b = await providerWithService(o, { externalId: 'b' });
  const both = await resolve(o, b.service.id);
  t.is(both.status, 200, JSON.stringify(both.body));
  t.deepEqual(new Set(both.body.options.map((x: any) => x.provider.id)), new Set([a.provider.id, b.provider.id]));
  t.is((await o.api.delete(`/api/v2/services/${a.service.id}`)).status, 200);
  const gone = await resolve(o, a.service.id);
  t.is(gone.status, 404);
  t.like(gone.body.error, { code: 'SERVICE_NOT_FOUND', field: 'serviceId' });
  const rest = await resolve(o, b.service.id);
  t.is(rest.status, 200, JSON.stringify(rest.body));
  t.true(rest.body.options.length > 0);
  t.true(rest.body.options.every((x: any) => x.provider.id === b.provider.id));
  // v1 slots and v1 booking creation do not sell it either.
  const slots = await o.api.get(
    `/api/v1/slots?providerId=${a.provider.id}&eventTypeId=${a.service.id}&date=2026-03-03`,
  );
  t.is(slots.status, 404);
});

test('bookings made before a DELETE keep their service, and a hold taken before it can still be confirmed', async (t) => {
  const o = await newOrganization(svc, `svc-del-bk-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  const r = (await resolve(o, p.service.id)).body;
  const [first, second] = r.options;
  const booked = await o.api.post(
    `/api/v2/resolutions/${r.resolutionId}/confirm`,
    { optionId: first.optionId, customer },
    idem(),
  );
  t.is(booked.status, 200, JSON.stringify(booked.body));
  const r2 = (await resolve(o, p.service.id, '2026-03-04', '2026-03-05')).body;
  const held = await o.api.post(`/api/v2/resolutions/${r2.resolutionId}/options/${r2.options[0].optionId}/hold`, {
    ttlSeconds: 300,
  });
  t.is(held.status, 200, JSON.stringify(held.body));
  t.truthy(second);

  t.is((await o.api.delete(`/api/v2/services/${p.service.id}`)).status, 200);
  const read = await o.api.get(`/api/v2/bookings/${booked.body.bookingId ?? booked.body.id}`);
  t.is(read.status, 200, JSON.stringify(read.body));
  t.like(read.body.service, { id: p.service.id, displayName: p.service.title });
  const confirmed = await o.api.post(
    `/api/v2/resolutions/${r2.resolutionId}/confirm`,
    { optionId: r2.options[0].optionId, holdId: held.body.holdId, customer },
    idem(),
  );
  t.is(confirmed.status, 200, JSON.stringify(confirmed.body));
  t.is(confirmed.body.status, 'confirmed');
  // Cancelling works as before (v1 cancel: the v2 API has none).
  const cancel = await o.api.post(
    `/api/v1/bookings/${booked.body.bookingId ?? booked.body.id}/cancel`,
    { reason: 'service withdrawn' },
    idem(),
  );
  t.is(cancel.status, 200, JSON.stringify(cancel.body));
  t.is(cancel.body.status, 'cancelled');
});

/** Promisifies a grpc-js unary call made with a callback. */
function unary<T>(fn: (cb: (err: GrpcError | null, res: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
}

test('the gRPC door answers UpdateService and DeleteService in typed messages as REST does', async (t) => {
  const o = await newOrganization(svc, `svc-grpc-${randomUUID().slice(0, 8)}`);
  const { service } = await providerWithService(o, { externalId: 'p1' }, { schedule: null });
  const other = await newOrganization(svc, `svc-grpc-b-${randomUUID().slice(0, 8)}`);
  const md = new Metadata();
  md.set('authorization', `Bearer ${o.key}`);
  const catalog = new CatalogServiceClient(svc.grpcTarget, credentials.createInsecure());
  try {
    const v0 = await graphVersion(o);
    const updated = await unary<UpdateServiceResponse>((cb) =>
      catalog.updateService(
        typedRequest('UpdateService', {
          params: { id: service.id },
          body: { title: 'Typed Title', price: 5000, currency: 'usd' },
        }),
        md,
        cb,
      ),
    );
    const rest = (await o.api.get(`/api/v2/services/${service.id}`)).body;
    t.deepEqual(restOfResponse('UpdateService', updated), rest);
    t.like(rest, { title: 'Typed Title', slug: 'typed-title', price: 5000, currency: 'USD' });
    t.is(await graphVersion(o), v0 + 1);
    t.is((await auditOf(service.id, 'service.update')).length, 1, 'audited like a REST write');

    // Refusals carry the contract's code and field, as REST does.
    const bad = await unary((cb) =>
      catalog.updateService(
        typedRequest('UpdateService', { params: { id: service.id }, body: { duration: 2 } }),
        md,
        cb,
      ),
    ).catch((e: GrpcError) => e);
    t.like(decodeServiceError(bad as GrpcError), { code: 'VALIDATION_ERROR', field: 'duration' });
    const otherMd = new Metadata();
    otherMd.set('authorization', `Bearer ${other.key}`);
    const foreign = await unary((cb) =>
      catalog.deleteService(typedRequest('DeleteService', { params: { id: service.id } }), otherMd, cb),
    ).catch((e: GrpcError) => e);
    t.is(decodeServiceError(foreign as GrpcError).code, 'FORBIDDEN');

    const deleted = await unary<DeleteServiceResponse>((cb) =>
      catalog.deleteService(typedRequest('DeleteService', { params: { id: service.id } }), md, cb),
    );
    t.deepEqual(restOfResponse('DeleteService', deleted), { ...rest, deleted: true });
    t.is((await o.api.get(`/api/v2/services/${service.id}`)).status, 404);
    const again = await unary((cb) =>
      catalog.deleteService(typedRequest('DeleteService', { params: { id: service.id } }), md, cb),
    ).catch((e: GrpcError) => e);
    t.is(decodeServiceError(again as GrpcError).code, 'SERVICE_NOT_FOUND');
  } finally {
    catalog.close();
  }
});
