import test from 'ava';
import { randomBytes } from 'node:crypto';
import { client } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestStores } from '../helpers/test-service.js';

// Two service processes (real clock) with their own credential caches on one Redis and one PostgreSQL.
let stores: TestStores;
const started: ServiceProcess[] = [];
let a: ServiceProcess;
let b: ServiceProcess;
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  started.push(
    ...(await startServiceProcesses(2, {
      databaseUrl: stores.databaseUrl,
      redisUrl: stores.redisUrl,
      platformKey,
      name: 'revoke',
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    })),
  );
  [a, b] = started as [ServiceProcess, ServiceProcess];
});
test.after.always(async () => {
  for (const p of started) await p.kill('SIGKILL').catch(() => undefined);
  await stores?.stop();
});

test('a key revoked through one process stops working in every process within 1 second', async (t) => {
  const platform = client(a.url, platformKey);
  const org = (await platform.post('/api/v2/organizations', { externalId: 'revocation', name: 'Revocation' })).body;
  const key = (
    await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'to revoke' })
  ).body;
  // Both processes have looked the key up (and cached it) before it is revoked.
  for (const p of [a, b])
    for (let i = 0; i < 5; i++) t.is((await client(p.url, key.key).get(`/api/v2/organizations/${org.id}`)).status, 200);
  const revoked = await platform.delete(`/api/v2/api-keys/${key.id}`);
  t.is(revoked.status, 200);
  const revokedAt = Date.now();
  t.is(
    (await client(a.url, key.key).get(`/api/v2/organizations/${org.id}`)).status,
    401,
    'the revoking process refuses it at once',
  );
  // The other process may serve its cached lookup for a moment; it must refuse the key within one second.
  let refusedAfterMs: number | undefined;
  while (Date.now() - revokedAt < 2000) {
    const r = await client(b.url, key.key).get(`/api/v2/organizations/${org.id}`);
    if (r.status === 401) {
      refusedAfterMs = Date.now() - revokedAt;
      t.is(r.body.error.code, 'UNAUTHENTICATED');
      break;
    }
    t.is(r.status, 200);
    await new Promise((r) => setTimeout(r, 20));
  }
  t.truthy(refusedAfterMs !== undefined, 'the other process never refused the revoked key');
  t.true(refusedAfterMs! <= 1000, `refused ${refusedAfterMs} ms after the revocation answered`);
  for (const p of [a, b]) t.is((await client(p.url, key.key).get(`/api/v2/organizations/${org.id}`)).status, 401);
});
