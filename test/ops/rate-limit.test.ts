import test from 'ava';
import { randomBytes } from 'node:crypto';
import { insertApiKey } from '../../src/persistence/api-key-repository.js';
import { client, type JsonResponse } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

const LIMIT = 5;
let stores: TestStores;
let a: TestService;
let b: TestService;
const clock = createTestClock();

test.before(async () => {
  stores = await startTestStores();
  const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
  const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT) };
  a = await startTestService({ stores, platformKey, clock, env });
  b = await startTestService({ stores, platformKey, clock, env });
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await stores?.stop();
});

/** A fresh key made straight in the database, so making it spends none of a key's budget. */
async function freshKey(): Promise<string> {
  const db = a.service.deps.db;
  const p = (await db.query('SELECT id, default_organization_id FROM platforms LIMIT 1')).rows[0];
  const { key } = await insertApiKey(db, {
    platformId: p.id,
    organizationId: p.default_organization_id,
    type: 'platform_test',
    name: 'rate limit test',
    now: clock(),
  });
  return key;
}

const limitHeaders = (r: JsonResponse) => ({
  limit: r.headers.get('ratelimit-limit'),
  remaining: r.headers.get('ratelimit-remaining'),
  reset: r.headers.get('ratelimit-reset'),
});

test.serial('the request after the limit is 429 RATE_LIMITED with Retry-After and RateLimit headers', async (t) => {
  const key = await freshKey();
  const api = client(a.url, key);
  for (let i = 1; i <= LIMIT; i++) {
    const ok = await api.get('/api/v2/organizations');
    t.is(ok.status, 200, `request ${i}`);
    t.like(limitHeaders(ok), { limit: String(LIMIT), remaining: String(LIMIT - i) }, `request ${i}`);
    t.regex(ok.headers.get('ratelimit-reset') ?? '', /^\d+$/);
  }
  const limited = await api.get('/api/v2/organizations');
  t.is(limited.status, 429);
  t.is(limited.body.error.code, 'RATE_LIMITED');
  t.true(limited.body.error.recoverable);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  t.like(limitHeaders(limited), { limit: String(LIMIT), remaining: '0' });
  // Another key has its own budget.
  t.is((await client(a.url, await freshKey()).get('/api/v2/organizations')).status, 200);
});

test.serial('the limit is shared by every process on the same Redis', async (t) => {
  const key = await freshKey();
  const statuses: number[] = [];
  const remaining: (string | null)[] = [];
  for (let i = 0; i < LIMIT + 2; i++) {
    const r = await client(i % 2 ? b.url : a.url, key).get('/api/v2/organizations');
    statuses.push(r.status);
    remaining.push(r.headers.get('ratelimit-remaining'));
  }
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
  t.deepEqual(remaining, ['4', '3', '2', '1', '0', '0', '0']);
});

test.serial('a new window lets requests through again', async (t) => {
  const key = await freshKey();
  const api = client(b.url, key);
  for (let i = 0; i < LIMIT; i++) await api.get('/api/v2/organizations');
  t.is((await api.get('/api/v2/organizations')).status, 429);
  clock.advance(60_000);
  const again = await api.get('/api/v2/organizations');
  t.is(again.status, 200);
  t.is(again.headers.get('ratelimit-remaining'), String(LIMIT - 1));
  t.is((await client(a.url, key).get('/api/v2/organizations')).status, 200);
});
