import test from 'ava';
import { randomBytes } from 'node:crypto';
import { client, request, type JsonResponse } from '../helpers/http.js';
import { metricSample, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

// `api` runs every role: its gateway calls its API in-process. `edge` is a gateway-only process
// (SERVICE_ROLES=gateway) that calls the same API over gRPC, as README "One role per process" runs it: in-process the
// typed messages are passed as objects, over gRPC they are encoded.
let stores: TestStores;
let api: TestService;
let edge: TestService;
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  api = await startTestService({
    stores,
    platformKey,
    env: { METRICS_TOKEN: TEST_METRICS_TOKEN },
  });
  edge = await startTestService({
    stores,
    platformKey,
    env: { SERVICE_ROLES: 'gateway', GRPC_TARGET: api.grpcTarget },
  });
});
test.after.always(async () => {
  await edge?.stop();
  await api?.stop();
  await stores?.stop();
});

/** What a REST client sees of an answer, but the parts that differ per request (request ids, remaining quota). */
function seen(r: JsonResponse) {
  const body = r.body && typeof r.body === 'object' ? structuredClone(r.body) : r.body;
  if (body?.error) delete body.error.requestId;
  return {
    status: r.status,
    body,
    contentType: r.headers.get('content-type'),
    rateLimit: r.headers.get('ratelimit-limit'),
    retryAfter: r.headers.get('retry-after'),
  };
}

test.serial(
  'a gateway-only process answers as the in-process gateway does: reads, errors and refusals alike',
  async (t) => {
    const created = await client(api.url, platformKey).post('/api/v2/organizations', {
      externalId: 'in-process-same',
      name: 'Same answers',
    });
    t.is(created.status, 200);
    const org = created.body.id as string;
    const asPlatform = { 'service-organization-id': org };
    const cases: [string, (base: string) => Promise<JsonResponse>][] = [
      ['GET organization', (b) => client(b, platformKey, asPlatform).get(`/api/v2/organizations/${org}`)],
      ['PATCH organization', (b) => client(b, platformKey).patch(`/api/v2/organizations/${org}`, { name: 'Same' })],
      ['a page of organizations', (b) => client(b, platformKey).get('/api/v2/organizations?limit=1')],
      ['a page size that is no number', (b) => client(b, platformKey).get('/api/v2/organizations?limit=ten')],
      ['unknown organization', (b) => client(b, platformKey).get('/api/v2/organizations/org_nope')],
      ['invalid body', (b) => client(b, platformKey).post('/api/v2/organizations', { externalId: 7, name: 'x' })],
      ['malformed JSON', (b) => request(b, 'POST', '/api/v2/organizations', { key: platformKey, rawBody: '{"a":' })],
      ['no key', (b) => client(b).get(`/api/v2/organizations/${org}`)],
      ['no route', (b) => client(b, platformKey).get('/api/v2/nothing-here')],
    ];
    for (const [what, send] of cases) {
      const inProcess = seen(await send(api.url));
      const overNetwork = seen(await send(edge.url));
      t.deepEqual(overNetwork, inProcess, what);
    }
    t.is(seen(await client(api.url, platformKey, asPlatform).get(`/api/v2/organizations/${org}`)).status, 200);
    t.is(seen(await client(api.url, platformKey).get('/api/v2/organizations/org_nope')).status, 404);
  },
);

test.serial(
  "in-process calls go through the server's authentication and observer: a revoked key is refused, the RPC is counted",
  async (t) => {
    const platform = client(api.url, platformKey);
    const org = (await platform.post('/api/v2/organizations', { externalId: 'in-process-auth', name: 'Auth' })).body;
    const key = (
      await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'to revoke' })
    ).body;
    const sample = (outcome: string) =>
      `scheduling_rpc_duration_seconds_count{service="OrganizationService",method="GetOrganization",outcome="${outcome}"}`;
    const count = async (outcome: string) => (await metricSample(api.url, sample(outcome), TEST_METRICS_TOKEN)) ?? 0;

    const okBefore = await count('OK');
    t.is((await client(api.url, key.key).get(`/api/v2/organizations/${org.id}`)).status, 200);
    t.is(await count('OK'), okBefore + 1, 'the REST request is one GetOrganization call to the observer');

    t.is((await platform.delete(`/api/v2/api-keys/${key.id}`)).status, 200);
    const deadline = Date.now() + 3000;
    let refused = await client(api.url, key.key).get(`/api/v2/organizations/${org.id}`);
    while (refused.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      refused = await client(api.url, key.key).get(`/api/v2/organizations/${org.id}`);
    }
    t.is(refused.status, 401);
    t.is(refused.body.error.code, 'UNAUTHENTICATED');
  },
);
