import test from 'ava';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const platform = () => client(svc.url, svc.platformKey);

test('creates, lists, reads and updates organizations with a platform key', async (t) => {
  const created = await platform().post('/api/v2/organizations', {
    externalId: 'clinic-a',
    name: 'Clinic A',
    settings: { plan: 'launch', timezone: 'America/New_York' },
  });
  t.is(created.status, 200);
  t.like(created.body, {
    externalId: 'clinic-a',
    name: 'Clinic A',
    settings: { plan: 'launch', allowUnverifiable: false, timezone: 'America/New_York' },
  });
  t.regex(created.body.id, /^org_/);
  t.regex(created.body.platformId, /^plt_/);
  t.truthy(Date.parse(created.body.createdAt));

  const dup = await platform().post('/api/v2/organizations', { externalId: 'clinic-a', name: 'Again' });
  t.is(dup.status, 409);
  t.is(dup.body.error.code, 'DUPLICATE_EXTERNAL_ID');

  const read = await platform().get(`/api/v2/organizations/${created.body.id}`);
  t.deepEqual(read.body, created.body);

  const patched = await platform().patch(`/api/v2/organizations/${created.body.id}`, {
    settings: { allowUnverifiable: true },
  });
  t.is(patched.status, 200);
  t.like(patched.body.settings, { plan: 'launch', allowUnverifiable: true, timezone: 'America/New_York' });

  const list = await platform().get('/api/v2/organizations?limit=1');
  t.is(list.body.data.length, 1);
  t.true(list.body.hasMore);
  const next = await platform().get(`/api/v2/organizations?limit=1&cursor=${list.body.nextCursor}`);
  t.not(next.body.data[0].id, list.body.data[0].id);
});

test('organization keys act only in their own organization', async (t) => {
  const org = (await platform().post('/api/v2/organizations', { externalId: 'org-key-test', name: 'Org Key Test' }))
    .body;
  const other = (await platform().post('/api/v2/organizations', { externalId: 'org-key-other', name: 'Other' })).body;
  const key = await platform().post('/api/v2/api-keys', {
    type: 'organization_test',
    organizationId: org.id,
    name: 'front desk',
  });
  t.is(key.status, 200);
  t.regex(key.body.key, /^service_test_[A-Za-z0-9_-]{32,}$/);
  const orgClient = client(svc.url, key.body.key);

  t.is((await orgClient.get(`/api/v2/organizations/${org.id}`)).status, 200);
  const cross = await orgClient.get(`/api/v2/organizations/${other.id}`);
  t.is(cross.status, 403);
  t.is(cross.body.error.code, 'FORBIDDEN');
  const list = await orgClient.get('/api/v2/organizations');
  t.deepEqual(
    list.body.data.map((o: any) => o.id),
    [org.id],
  );
  const upd = await orgClient.patch(`/api/v2/organizations/${org.id}`, { name: 'x' });
  t.is(upd.body.error.code, 'PLATFORM_KEY_REQUIRED');
  const create = await orgClient.post('/api/v2/organizations', { externalId: 'nope', name: 'Nope' });
  t.is(create.status, 403);
  t.is(create.body.error.code, 'PLATFORM_KEY_REQUIRED');

  // The organization header with an organization key is 401.
  const withHeader = await orgClient.get(`/api/v2/organizations/${org.id}`, { 'service-organization-id': org.id });
  t.is(withHeader.status, 401);
  t.is(withHeader.body.error.code, 'UNAUTHENTICATED');

  // The key API: list shows no secret, revoke makes the key answer 401.
  const keys = await platform().get('/api/v2/api-keys');
  const listed = keys.body.data.find((k: any) => k.id === key.body.id);
  t.truthy(listed);
  t.is(listed.key, undefined);
  t.false(JSON.stringify(keys.body).includes(key.body.key));
  const revoked = await platform().delete(`/api/v2/api-keys/${key.body.id}`);
  t.truthy(revoked.body.revokedAt);
  const after = await orgClient.get(`/api/v2/organizations/${org.id}`);
  t.is(after.status, 401);
});

test('platform key with Service-Organization-Id: own organizations only, unknown is 403', async (t) => {
  const org = (await platform().post('/api/v2/organizations', { externalId: 'hdr', name: 'Hdr' })).body;
  const ok = await platform().get(`/api/v2/organizations/${org.id}`, { 'service-organization-id': org.id });
  t.is(ok.status, 200);
  const unknown = await platform().get('/api/v2/organizations', { 'service-organization-id': 'org_doesnotexist' });
  t.is(unknown.status, 403);
  t.is(unknown.body.error.code, 'FORBIDDEN');
});

const badAuth: [string, Record<string, string>][] = [
  ['no header', {}],
  ['not bearer', { authorization: 'Basic abc' }],
  ['wrong prefix', { authorization: 'Bearer sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
  ['too short', { authorization: 'Bearer service_test_abc' }],
  ['unknown key', { authorization: 'Bearer service_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
];
for (const [name, headers] of badAuth) {
  test(`401 UNAUTHENTICATED: ${name}`, async (t) => {
    const r = await request(svc.url, 'GET', '/api/v2/organizations', { headers });
    t.is(r.status, 401);
    t.is(r.body.error.code, 'UNAUTHENTICATED');
    t.is(r.body.error.status, 401);
    t.is(r.body.error.requestId, r.headers.get('x-service-request-id'));
    t.false(r.body.error.recoverable);
  });
}

const badBodies: [string, unknown, string][] = [
  ['missing externalId', { name: 'x' }, 'externalId'],
  ['missing name', { externalId: 'x' }, 'name'],
  ['name wrong type', { externalId: 'x', name: 5 }, 'name'],
  ['name too long', { externalId: 'x', name: 'n'.repeat(201) }, 'name'],
  ['unknown plan', { externalId: 'x', name: 'x', settings: { plan: 'gold' } }, 'settings.plan'],
  ['bad timezone', { externalId: 'x', name: 'x', settings: { timezone: 'Mars/Olympus' } }, 'settings.timezone'],
  [
    'allowUnverifiable not boolean',
    { externalId: 'x', name: 'x', settings: { allowUnverifiable: 'yes' } },
    'settings.allowUnverifiable',
  ],
  ['body is an array', [], '(body)'],
];
for (const [name, body, field] of badBodies) {
  test(`create organization rejects bad input: ${name}`, async (t) => {
    const r = await platform().post('/api/v2/organizations', body);
    t.is(r.status, 400);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, field);
    t.true(Array.isArray(r.body.error.details));
    const all = (await platform().get('/api/v2/organizations?limit=500')).body.data;
    t.false(
      all.some((o: any) => o.externalId === 'x'),
      'nothing was created',
    );
  });
}

test('malformed JSON is 400 INVALID_JSON, a body over 1 MB is 413, an unknown route is 404', async (t) => {
  const bad = await request(svc.url, 'POST', '/api/v2/organizations', {
    key: svc.platformKey,
    rawBody: '{"externalId": ',
  });
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'INVALID_JSON');
  const big = await request(svc.url, 'POST', '/api/v2/organizations', {
    key: svc.platformKey,
    rawBody: JSON.stringify({ externalId: 'x', name: 'y', pad: 'p'.repeat(1024 * 1024) }),
  });
  t.is(big.status, 413);
  t.is(big.body.error.code, 'PAYLOAD_TOO_LARGE');
  const none = await request(svc.url, 'GET', '/api/v2/nothing-here', { key: svc.platformKey });
  t.is(none.status, 404);
  t.is(none.body.error.code, 'ROUTE_NOT_FOUND');
  t.truthy(none.headers.get('x-service-request-id'));
});

test('invalid query values are 400', async (t) => {
  for (const q of ['limit=abc', 'limit=0', 'limit=501', 'cursor=%25%25%25']) {
    const r = await platform().get(`/api/v2/organizations?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error.code, 'VALIDATION_ERROR', q);
  }
});

test('rate-limit headers are on every v2 response with a valid key', async (t) => {
  const r = await platform().get('/api/v2/organizations');
  t.is(r.headers.get('ratelimit-limit'), '1200');
  t.truthy(Number(r.headers.get('ratelimit-remaining')) < 1200);
  t.truthy(Number(r.headers.get('ratelimit-reset')) >= 1);
  const err = await platform().get('/api/v2/organizations/org_missing');
  t.is(err.status, 404);
  t.is(err.headers.get('ratelimit-limit'), '1200');
});
