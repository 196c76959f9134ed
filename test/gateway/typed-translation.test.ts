import test from 'ava';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { requestMessageOf } from '../../src/contract/request-message-of.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { client } from '../helpers/http.js';
import { metricSample, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';

const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
const resolutionBody = { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } };

test("a REST input becomes the typed request; path and query text take their fields' types", (t) => {
  const create = requestMessageOf(route('CreateResolution'), { params: {}, query: {}, body: resolutionBody });
  t.like(create, { serviceId: 'svc_1', dateRange: { fromDate: '2026-03-02', toDate: '2026-03-03' } });
  t.false('bodyJson' in create, 'the request has no gateway form');
  const list = requestMessageOf(route('ListProviders'), {
    params: {},
    query: { limit: '2', status: 'active' },
    body: undefined,
  });
  t.like(list, { pageSize: 2 }, 'a list query with a page size and a closed-set filter; the page size as a number');
  // A route whose body may be left out reads a missing body as {}: it still goes typed.
  t.truthy(
    requestMessageOf(route('HoldOption'), { params: { id: 'res_1', optionId: 'opt_1' }, query: {}, body: undefined }),
  );
});

test("a PATCH body's keys become the update mask, a null among them clears that field", (t) => {
  const update = route('UpdateProvider');
  const m = requestMessageOf(update, { params: { id: 'prv_1' }, query: {}, body: { displayName: 'Dr. B', bio: null } });
  t.deepEqual([...(m.updateMask as string[])].sort(), ['bio', 'display_name']);
  t.false('bio' in m, 'a null is an unset field the mask names');
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
  'through the gateway: a plain request goes typed, a malformed one is refused at the edge, and all answer as the contract says',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const form = async (f: string) =>
      (await metricSample(svc.url, `scheduling_gateway_request_form_total{form="${f}"}`, TEST_METRICS_TOKEN)) ?? 0;
    const typed0 = await form('typed');
    const org = await platform.post('/api/v2/organizations', { externalId: 'typed-1', name: 'Typed' });
    t.is(org.status, 200);
    const read = await platform.get(`/api/v2/organizations/${org.body.id}`);
    t.is(read.status, 200);
    t.is(read.body.name, 'Typed');
    t.is(await form('typed'), typed0 + 2);
    // A number where the contract wants text: every service being typed, the edge refuses it with the
    // field and sends nothing.
    const bad = await platform.post('/api/v2/organizations', { externalId: 7, name: 'Typed' });
    t.is(bad.status, 400);
    t.is(bad.body.error.code, 'VALIDATION_ERROR');
    t.is(bad.body.error.field, 'externalId');
    const inOrg = client(svc.url, svc.platformKey, { 'service-organization-id': org.body.id });
    // Query text that is no decimal count, for a platform key acting for an organization: refused at the edge too.
    const badList = await inOrg.get('/api/v2/resolutions?limit=ten');
    t.is(badList.status, 400);
    t.is(badList.body.error.code, 'VALIDATION_ERROR');
    t.is(badList.body.error.field, 'limit');
  },
);
