import test from 'ava';
import { request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { ALL_ROUTES } from '../../src/contract/routes/all-routes.js';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('openapi.json is OpenAPI 3.1 and describes every route, its body and its error codes, without a key', async (t) => {
  const r = await request(svc.url, 'GET', '/openapi.json');
  t.is(r.status, 200);
  t.is(r.body.openapi, '3.1.0');
  for (const route of ALL_ROUTES) {
    const op = r.body.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    t.truthy(op, `${route.method} ${route.path}`);
    if (route.body) t.truthy(op.requestBody?.content?.['application/json']?.schema, `${route.path} body`);
    for (const code of route.errors ?? []) {
      const st = String(ERROR_CATALOGUE[code].status);
      t.true(op.responses[st]?.['x-error-codes']?.includes(code), `${route.path} lists ${code}`);
    }
  }
  t.deepEqual(Object.keys(r.body['x-error-codes']).sort(), Object.keys(ERROR_CATALOGUE).sort());
  // The schema that validates a provider create also documents it.
  const create = r.body.paths['/api/v2/providers'].post.requestBody.content['application/json'].schema;
  t.deepEqual([...create.required].sort(), ['displayName', 'externalId']);
});

test('capabilities.json lists endpoints, error codes and limits; health endpoints need no key', async (t) => {
  const r = await request(svc.url, 'GET', '/capabilities.json');
  t.is(r.status, 200);
  t.is(r.body.endpoints.length, ALL_ROUTES.length);
  t.true(r.body.errorCodes.includes('SLOT_UNAVAILABLE'));
  t.is(r.body.limits.providersPerImport, 500);
  t.is((await request(svc.url, 'GET', '/healthz')).status, 200);
  t.deepEqual((await request(svc.url, 'GET', '/readyz')).body, { status: 'ready' });
  t.truthy((await request(svc.url, 'GET', '/healthz')).headers.get('x-service-request-id'));
});
