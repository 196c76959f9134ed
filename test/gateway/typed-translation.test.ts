import test from 'ava';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { typedRequestOf } from '../../src/gateway/typed-request-of.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { client } from '../helpers/http.js';
import { metricSample, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';

const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
const resolutionBody = { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } };

test("a REST input the message carries exactly becomes the typed request; path and query text take their fields' types", (t) => {
  const create = typedRequestOf(route('CreateResolution'), { params: {}, query: {}, body: resolutionBody });
  t.like(create, { serviceId: 'svc_1', dateRange: { fromDate: '2026-03-02', toDate: '2026-03-03' } });
  t.is(create!.bodyJson, undefined);
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

test('input the message cannot carry exactly stays in the JSON form, for the one validator to answer', (t) => {
  const create = route('CreateResolution');
  const none = (body: unknown, query: Record<string, string> = {}) =>
    typedRequestOf(create, { params: {}, query, body });
  t.is(none({ ...resolutionBody, serviceId: 5 }), undefined, 'a number where a string goes');
  t.is(none({ ...resolutionBody, extra: true }), undefined, 'an unknown member');
  t.is(none({ ...resolutionBody, serviceId: null }), undefined, 'a null');
  t.is(none({ ...resolutionBody, serviceId: 'svc_\ud800' }), undefined, 'a lone surrogate protobuf would re-encode');
  t.is(none([resolutionBody]), undefined, 'a body that is not an object');
  t.is(none(undefined), undefined, 'a missing body on a route that needs one');
  const list = route('ListProviders');
  t.is(
    typedRequestOf(list, { params: {}, query: { status: 'asleep' }, body: undefined }),
    undefined,
    'a value out of the enum',
  );
  // A query-string integer is a number in the message: text that is not its canonical decimal does not read back.
  t.is(
    typedRequestOf(list, { params: {}, query: { limit: '02' }, body: undefined }),
    undefined,
    'a page size with a leading zero',
  );
  t.is(
    typedRequestOf(list, { params: {}, query: { limit: 'ten' }, body: undefined }),
    undefined,
    'a page size that is not a number',
  );
  t.is(
    typedRequestOf(list, { params: {}, query: { limit: '1e3' }, body: undefined }),
    undefined,
    'a page size in exponent form',
  );
  t.is(typedRequestOf(list, { params: {}, query: { limit: '' }, body: undefined }), undefined, 'an empty page size');
  t.is(
    typedRequestOf(list, { params: {}, query: { searchable: 'yes' }, body: undefined }),
    undefined,
    'a boolean other than true or false',
  );
});

test("a PATCH body's keys become the update mask, a null among them clears that field", (t) => {
  const update = route('UpdateProvider');
  const m = typedRequestOf(update, { params: { id: 'prv_1' }, query: {}, body: { displayName: 'Dr. B', bio: null } });
  t.truthy(m);
  t.deepEqual([...(m!.updateMask as string[])].sort(), ['bio', 'display_name']);
});

test("a typed service's PATCH names each field in its mask by its protobuf name, a named enum's field included", (t) => {
  const m = requestMessageOf(route('UpdateProvider'), {
    params: { id: 'prv_1' },
    query: {},
    body: { status: 'inactive', panelCapacity: null, specialtyCodes: [] },
  });
  t.like(m, { id: 'prv_1', providerStatus: 'PROVIDER_STATUS_INACTIVE', specialtyCodes: [] });
  t.deepEqual(m.updateMask, ['provider_status', 'specialty_codes', 'panel_capacity']);
  t.false('panelCapacity' in m, 'a null is an unset field the mask names');
});

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
});
test.after.always(async () => {
  await svc?.stop();
});

test.serial(
  'through the gateway: a plain request goes typed, a malformed one is refused at the edge and never sent in the JSON form, and all answer as the contract says',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const form = async (f: string) =>
      (await metricSample(svc.url, `scheduling_gateway_request_form_total{form="${f}"}`, TEST_METRICS_TOKEN)) ?? 0;
    const typed0 = await form('typed');
    const json0 = await form('json');
    const org = await platform.post('/api/v2/organizations', { externalId: 'typed-1', name: 'Typed' });
    t.is(org.status, 200);
    const read = await platform.get(`/api/v2/organizations/${org.body.id}`);
    t.is(read.status, 200);
    t.is(read.body.name, 'Typed');
    t.is(await form('typed'), typed0 + 2);
    t.is(await form('json'), json0);
    // A number where the contract wants text: every service being typed (TYPED_SERVICES), the edge refuses it with the
    // field and sends nothing.
    const bad = await platform.post('/api/v2/organizations', { externalId: 7, name: 'Typed' });
    t.is(bad.status, 400);
    t.is(bad.body.error.code, 'VALIDATION_ERROR');
    t.is(bad.body.error.field, 'externalId');
    t.is(await form('json'), json0);
    const inOrg = client(svc.url, svc.platformKey, { 'service-organization-id': org.body.id });
    // Query text that is no decimal count, for a platform key acting for an organization: refused at the edge too.
    const badList = await inOrg.get('/api/v2/resolutions?limit=ten');
    t.is(badList.status, 400);
    t.is(badList.body.error.code, 'VALIDATION_ERROR');
    t.is(badList.body.error.field, 'limit');
    t.is(await form('json'), json0);
  },
);
