import test from 'ava';
import { randomBytes } from 'node:crypto';
import { client } from '../helpers/http.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

let stores: TestStores;
let a: TestService;
let b: TestService;
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  // Start one after the other: both bootstrap the same platform key, the second finds it.
  a = await startTestService({ stores, platformKey });
  b = await startTestService({ stores, platformKey });
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await stores?.stop();
});

test('an organization created through one process is read through the other', async (t) => {
  t.not(a.url, b.url);
  const created = await client(a.url, platformKey).post('/api/v2/organizations', {
    externalId: 'two-proc-read',
    name: 'Shared',
  });
  t.is(created.status, 200);
  const read = await client(b.url, platformKey).get(`/api/v2/organizations/${created.body.id}`);
  t.is(read.status, 200);
  t.deepEqual(read.body, created.body);
  const key = await client(b.url, platformKey).post('/api/v2/api-keys', {
    type: 'organization_test',
    organizationId: created.body.id,
    name: 'made on b',
  });
  t.is((await client(a.url, key.body.key).get(`/api/v2/organizations/${created.body.id}`)).status, 200);
});

test('concurrent creates of one externalId across both processes: exactly one succeeds', async (t) => {
  const attempts = Array.from({ length: 8 }, (_, i) =>
    client(i % 2 ? a.url : b.url, platformKey).post('/api/v2/organizations', {
      externalId: 'two-proc-race',
      name: `Racer ${i}`,
    }),
  );
  const results = await Promise.all(attempts);
  const statuses = results.map((r) => r.status).sort();
  t.deepEqual(statuses, [200, 409, 409, 409, 409, 409, 409, 409]);
  t.true(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'DUPLICATE_EXTERNAL_ID'));
  const rows = await a.service.deps.db.query(
    "SELECT count(*)::int AS n FROM organizations WHERE external_id = 'two-proc-race'",
  );
  t.is(rows.rows[0].n, 1);
});
