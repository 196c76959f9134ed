import test from 'ava';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { typedRequestOf } from '../../src/gateway/typed-request-of.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { client } from '../helpers/http.js';
import { TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import type { RestInput } from '../../src/contract/typed-message.js';

const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
const resolutionBody = { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } };

test("a REST input the message carries exactly becomes the typed request; path and query text take their fields' types", (t) => {
  const create = typedRequestOf(route('CreateResolution'), { params: {}, query: {}, body: resolutionBody });
  t.like(create, { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } });
  const list = typedRequestOf(route('ListProviders'), {
    params: {},
    query: { limit: '2', status: 'active' },
    body: undefined,
  });
  t.like(
    list,
    { pageSize: 2 },
    'a list query with a page size and a closed-set filter fits; the page size as a number',
  );
  // A route whose body may be left out reads a missing body as {}: it still goes typed.
  t.truthy(
    typedRequestOf(route('HoldOption'), { params: { id: 'res_1', optionId: 'opt_1' }, query: {}, body: undefined }),
  );
});

test("input the message cannot carry exactly is refused at the edge with the route's schemas' code and field", (t) => {
  const refusal = (rpc: string, input: Partial<RestInput>) => {
    const err = t.throws(() => typedRequestOf(route(rpc), { params: {}, query: {}, body: undefined, ...input }));
    t.true(err instanceof ServiceError, String(err));
    return { code: (err as ServiceError).code, field: (err as ServiceError).field };
  };
  const create = (body: unknown) => refusal('CreateResolution', { body });
  t.deepEqual(create({ ...resolutionBody, serviceId: 5 }), { code: 'VALIDATION_ERROR', field: 'serviceId' });
  t.deepEqual(create({ ...resolutionBody, serviceId: null }), { code: 'VALIDATION_ERROR', field: 'serviceId' });
  t.deepEqual(create([resolutionBody]), { code: 'VALIDATION_ERROR', field: '(body)' }, 'a body that is not an object');
  t.deepEqual(create(undefined), { code: 'VALIDATION_ERROR', field: '(body)' }, 'a missing body');
  // Text protobuf would re-encode (a lone surrogate is not Unicode), which no operation could store either.
  t.deepEqual(create({ ...resolutionBody, serviceId: 'svc_\ud800' }), { code: 'VALIDATION_ERROR', field: 'serviceId' });
  const list = (query: Record<string, string>) => refusal('ListProviders', { query });
  t.deepEqual(list({ status: 'asleep' }), { code: 'VALIDATION_ERROR', field: 'status' }, 'a value out of the enum');
  for (const limit of ['ten', '1e3', '', '2.0'])
    t.is(list({ limit }).field, 'limit', `a page size of ${JSON.stringify(limit)}`);
  // Text the schema reads as a number (a leading zero) is carried as that number, as the validator reads it.
  t.like(typedRequestOf(route('ListProviders'), { params: {}, query: { limit: '02' }, body: undefined }), {
    pageSize: 2,
  });
  t.is(list({ searchable: 'yes' }).field, 'searchable', 'a boolean other than true or false');
});

test('members the route does not name are left out of the message, as the validator leaves them out', (t) => {
  const m = typedRequestOf(route('CreateResolution'), {
    params: {},
    query: { utm: 'x' },
    body: { ...resolutionBody, extra: true, dateRange: { ...resolutionBody.dateRange, note: 'n' } },
  });
  t.like(m, { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } });
  t.false('extra' in m);
  t.false('note' in (m.dateRange as object));
});

test("a PATCH body's keys become the update mask, a null among them clears that field", (t) => {
  const update = route('UpdateProvider');
  const m = typedRequestOf(update, { params: { id: 'prv_1' }, query: {}, body: { displayName: 'Dr. B', bio: null } });
  t.truthy(m);
  t.deepEqual([...(m!.updateMask as string[])].sort(), ['bio', 'display_name']);
});

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
});
test.after.always(async () => {
  await svc?.stop();
});

test.serial(
  'through the gateway: input the message cannot carry is 400 on its field, after the key is judged (401 first)',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const org = await platform.post('/api/v2/organizations', { externalId: 'typed-1', name: 'Typed' });
    t.is(org.status, 200);
    const read = await platform.get(`/api/v2/organizations/${org.body.id}`);
    t.is(read.status, 200);
    t.is(read.body.name, 'Typed');
    // A number where the contract wants text: refused at the edge, naming the field, counted against the key.
    const bad = await platform.post('/api/v2/organizations', { externalId: 7, name: 'Typed' });
    t.is(bad.status, 400);
    t.is(bad.body.error.code, 'VALIDATION_ERROR');
    t.is(bad.body.error.field, 'externalId');
    t.truthy(bad.headers.get('ratelimit-remaining'), 'the refusal carries the RateLimit state of the key');
    const badQuery = await platform.get('/api/v2/organizations?limit=ten');
    t.is(badQuery.status, 400);
    t.is(badQuery.body.error.field, 'limit');
    // The key is judged first, as on every call: bad input with no key, or a wrong one, is 401.
    const anonymous = await client(svc.url).get('/api/v2/organizations?limit=ten');
    t.is(anonymous.status, 401);
    t.is(anonymous.body.error.code, 'UNAUTHENTICATED');
    const wrong = await client(svc.url, `service_test_${'x'.repeat(40)}`).get('/api/v2/organizations?limit=ten');
    t.is(wrong.status, 401);
    // Nothing was written by the refused create.
    const list = await platform.get('/api/v2/organizations?limit=100');
    t.is(list.body.data.filter((o: { externalId: string }) => o.externalId === '7').length, 0);
  },
);
