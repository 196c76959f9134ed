import test from 'ava';
import { createCredentialCache } from '../../src/application/credential-cache.js';
import { hashApiKey } from '../../src/domain/api-key-secret.js';
import type { Database } from '../../src/persistence/database.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** The service's real database, counting the queries sent through it. */
function countingDb(): { db: Pick<Database, 'query'>; count: () => number } {
  let n = 0;
  const real = svc.service.deps.db;
  const query = ((...args: unknown[]) => {
    n++;
    return (real.query as (...a: unknown[]) => unknown)(...args);
  }) as Database['query'];
  return { db: { query }, count: () => n };
}

test('a key is looked up once per lifetime, concurrent misses share one query, and the lookup is trusted for keyTtlMs only', async (t) => {
  const o = await newOrganization(svc, 'cred-cache-ttl');
  const hash = hashApiKey(o.key);
  const { db, count } = countingDb();
  let now = 1_000;
  const cache = createCredentialCache({ db, keyTtlMs: 500, now: () => now });
  const rows = await Promise.all(Array.from({ length: 20 }, () => cache.keyByHash(hash)));
  t.is(count(), 1, 'twenty concurrent lookups of one key: one query');
  t.true(rows.every((r) => r?.organization_id === o.org.id));
  for (let i = 0; i < 100; i++) await cache.keyByHash(hash);
  t.is(count(), 1, 'later lookups within the lifetime: no query');
  now += 499;
  await cache.keyByHash(hash);
  t.is(count(), 1);
  now += 1;
  await cache.keyByHash(hash);
  t.is(count(), 2, 'at keyTtlMs after the query was sent, the key is read again');
});

test('unknown keys are cached briefly too; organizations are cached, unknown ones only briefly', async (t) => {
  const o = await newOrganization(svc, 'cred-cache-orgs');
  const { db, count } = countingDb();
  let now = 0;
  const cache = createCredentialCache({ db, keyTtlMs: 500, now: () => now });
  t.is(await cache.keyByHash(hashApiKey('service_test_unknownunknownunknownunknownunknown00')), undefined);
  t.is(await cache.keyByHash(hashApiKey('service_test_unknownunknownunknownunknownunknown00')), undefined);
  t.is(count(), 1);
  t.is(await cache.platformOfOrganization(o.org.id), o.org.platformId);
  t.is(await cache.platformOfOrganization('org_does_not_exist'), undefined);
  now += 10_000;
  t.is(await cache.platformOfOrganization(o.org.id), o.org.platformId);
  t.is(count(), 3, 'a known organization is not read again; it never changes platform');
  t.is(await cache.platformOfOrganization('org_does_not_exist'), undefined);
  t.is(count(), 4, 'an unknown organization is read again after keyTtlMs (it may have been created since)');
});

test('forgetKey drops a key at once; a revoked key answers 401 on the next request of the revoking process', async (t) => {
  const o = await newOrganization(svc, 'cred-cache-forget');
  const p = client(svc.url, svc.platformKey);
  const key = (
    await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: o.org.id, name: 'short-lived' })
  ).body;
  const api = client(svc.url, key.key);
  for (let i = 0; i < 3; i++)
    t.is((await api.get(`/api/v2/organizations/${o.org.id}`)).status, 200, 'the key is cached and valid');
  t.is((await p.delete(`/api/v2/api-keys/${key.id}`)).status, 200);
  const after = await api.get(`/api/v2/organizations/${o.org.id}`);
  t.is(after.status, 401);
  t.is(after.body.error.code, 'UNAUTHENTICATED');
});
