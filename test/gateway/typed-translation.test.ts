import test from 'ava';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { typedRequestOf } from '../../src/gateway/typed-request-of.js';
import { restJsonOf } from '../../src/gateway/rest-json-of.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { client } from '../helpers/http.js';
import { metricSample, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';

const route = (rpc: string) => ALL_ROUTES.find((r) => r.rpc === rpc)!;
const resolutionBody = { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } };

test("a REST input the message carries exactly becomes the typed request; path and query text take their fields' types", (t) => {
  const create = typedRequestOf(route('CreateResolution'), { params: {}, query: {}, body: resolutionBody });
  t.like(create, { serviceId: 'svc_1', dateRange: { from: '2026-03-02', to: '2026-03-03' } });
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

test('the check of typed answers fails a call whose typed answer does not read as its JSON form', (t) => {
  const get = route('GetOrganization');
  const json = JSON.stringify({ id: 'org_1', name: 'A' });
  // The typed part says nothing of the organization the JSON form names: a translation that lost it.
  const err = t.throws(() => restJsonOf(get, { resultJson: json }, true));
  t.true(err instanceof ServiceError);
  t.is((err as ServiceError).code, 'INTERNAL_ERROR');
  t.regex(String((err.cause as Error).message), /GetOrganization: the typed answer differs from its JSON form at \$/);
  // Without the check, the JSON form passes through as it came.
  t.is(restJsonOf(get, { resultJson: json }, false), json);
});

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
});
test.after.always(async () => {
  await svc?.stop();
});

test.serial(
  'through the gateway: a plain request goes typed, a malformed one in JSON form, and both answer as the contract says',
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
    // A number where the contract wants text: only the JSON form can carry it, and the validator names the field.
    const bad = await platform.post('/api/v2/organizations', { externalId: 7, name: 'Typed' });
    t.is(bad.status, 400);
    t.is(bad.body.error.code, 'VALIDATION_ERROR');
    t.is(bad.body.error.field, 'externalId');
    t.is(await form('json'), json0 + 1);
  },
);

test.serial(
  'every answer mode gives the same REST body: JSON text passed through, typed rendering, and the checked one',
  async (t) => {
    const platform = client(svc.url, svc.platformKey);
    const org = (await platform.post('/api/v2/organizations', { externalId: 'modes-1', name: 'Modes' })).body;
    const inOrg = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
    const provider = (
      await inOrg.post('/api/v2/providers', { externalId: 'm1', displayName: 'Dr. M', languageCodes: ['en'] })
    ).body;
    const paths = [
      `/api/v2/organizations/${org.id}`,
      `/api/v2/providers/${provider.id}`,
      '/api/v2/providers?limit=5',
      '/api/v2/providers',
    ];
    const checked = await Promise.all(paths.map(async (p) => (await inOrg.get(p)).body));
    for (const answers of ['json', 'typed'] as const) {
      const other = await startTestService({
        env: { GATEWAY_ANSWERS: answers },
        stores: svc.stores,
        platformKey: svc.platformKey,
      });
      try {
        const via = client(other.url, svc.platformKey, { 'service-organization-id': org.id });
        for (const [i, p] of paths.entries()) t.deepEqual((await via.get(p)).body, checked[i], `${answers}: GET ${p}`);
      } finally {
        await other.stop();
      }
    }
  },
);
