import test from 'ava';
import { randomBytes } from 'node:crypto';
import { bootstrapPlatform } from '../../src/application/bootstrap-platform.js';
import { client, request, type JsonResponse } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// CONTRACT part 1: RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset are on every response to a v2 request
// that carried a valid key, errors included; a request without a valid key is not counted and gets none of them.
const LIMIT = 1000;
let svc: TestService;
let orgKey: string;
let orgId: string;
let serviceOfOtherOrg: string;
let foreignOrgId: string;

test.before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId: 'rl-a', name: 'RL A' })).body;
  orgId = org.id;
  orgKey = (await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'rl' })).body
    .key;
  const other = (await p.post('/api/v2/organizations', { externalId: 'rl-b', name: 'RL B' })).body;
  const provider = (
    await client(svc.url, svc.platformKey, { 'service-organization-id': other.id }).post('/api/v2/providers', {
      externalId: 'rl-p',
      displayName: 'Dr. RL',
    })
  ).body;
  serviceOfOtherOrg = (
    await client(svc.url, svc.platformKey, { 'service-organization-id': other.id }).post('/api/v2/services', {
      providerId: provider.id,
      title: 'Other',
      duration: 30,
    })
  ).body.id;
  // An organization of another platform: naming it in Service-Organization-Id is 403 FORBIDDEN.
  const foreign = await bootstrapPlatform(svc.service.deps.db, {
    bootstrapKey: `service_test_${randomBytes(24).toString('base64url')}`,
    now: svc.clock(),
  });
  foreignOrgId = (
    await svc.service.deps.db.query('SELECT default_organization_id FROM platforms WHERE id = $1', [foreign.platformId])
  ).rows[0].default_organization_id;
});
test.after.always(async () => {
  await svc?.stop();
});

/** One request of the table: what is sent, and the status and code expected. */
interface Case {
  name: string;
  method: string;
  path: string;
  rawBody?: string;
  headers?: Record<string, string>;
  /** `platform` sends the platform key instead of the organization key. */
  key?: 'org' | 'platform';
  status: number;
  code?: string;
}

const tooLarge = JSON.stringify({ externalId: 'x', name: 'y', pad: 'p'.repeat(1024 * 1024) });

const cases = (): Case[] => [
  { name: 'success', method: 'GET', path: '/api/v2/organizations', status: 200 },
  {
    name: 'query validation',
    method: 'GET',
    path: '/api/v2/services?limit=abc',
    status: 400,
    code: 'VALIDATION_ERROR',
  },
  {
    name: 'body validation',
    method: 'POST',
    path: '/api/v2/services',
    rawBody: '{}',
    status: 400,
    code: 'VALIDATION_ERROR',
  },
  {
    name: 'missing Idempotency-Key',
    method: 'POST',
    path: '/api/v2/resolutions',
    rawBody: '{}',
    status: 400,
    code: 'IDEMPOTENCY_KEY_REQUIRED',
  },
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/api/v2/services',
    rawBody: '{"providerId": ',
    status: 400,
    code: 'INVALID_JSON',
  },
  {
    name: 'body over 1 MB',
    method: 'POST',
    path: '/api/v2/organizations',
    rawBody: tooLarge,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'platform key required',
    method: 'POST',
    path: '/api/v2/providers',
    rawBody: JSON.stringify({ externalId: 'x', displayName: 'X' }),
    status: 403,
    code: 'PLATFORM_KEY_REQUIRED',
  },
  {
    name: 'another organization’s resource',
    method: 'GET',
    path: `/api/v2/services/${serviceOfOtherOrg}`,
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    name: 'organization of another platform in the header',
    key: 'platform',
    method: 'GET',
    path: '/api/v2/providers',
    headers: { 'service-organization-id': foreignOrgId },
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    name: 'unknown organization in the header',
    key: 'platform',
    method: 'GET',
    path: '/api/v2/providers',
    headers: { 'service-organization-id': 'org_unknown' },
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    name: 'header with an organization key',
    method: 'GET',
    path: '/api/v2/providers',
    headers: { 'service-organization-id': orgId },
    status: 401,
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'unknown resource',
    method: 'GET',
    path: '/api/v2/services/svc_unknown',
    status: 404,
    code: 'SERVICE_NOT_FOUND',
  },
  { name: 'unknown GET route', method: 'GET', path: '/api/v2/nothing-here', status: 404, code: 'ROUTE_NOT_FOUND' },
  {
    name: 'unknown POST route with a body',
    method: 'POST',
    path: '/api/v2/nothing-here/x',
    rawBody: '{"a":1}',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
  },
  {
    name: 'known path, unknown method',
    method: 'PUT',
    path: '/api/v2/organizations',
    rawBody: '{}',
    status: 404,
    code: 'ROUTE_NOT_FOUND',
  },
];

const send = (c: Case, key: string | undefined): Promise<JsonResponse> =>
  request(svc.url, c.method, c.path, {
    ...(key ? { key } : {}),
    ...(c.rawBody !== undefined ? { rawBody: c.rawBody } : {}),
    headers: c.headers ?? {},
  });

test.serial(
  'every v2 answer to a valid key carries the three RateLimit headers, and each request counts once',
  async (t) => {
    // One fresh key per key kind, so the remaining count is exactly predictable.
    const p = client(svc.url, svc.platformKey);
    const platformKey = (await p.post('/api/v2/api-keys', { type: 'platform_test', name: 'rl platform' })).body
      .key as string;
    const organizationKey = (
      await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: orgId, name: 'rl org' })
    ).body.key as string;
    const used = { org: 0, platform: 0 };
    // Every difference is collected, so one run shows each class that lacks a header.
    const problems: string[] = [];
    for (const c of cases()) {
      const kind = c.key ?? 'org';
      const r = await send(c, kind === 'org' ? organizationKey : platformKey);
      used[kind]++;
      const got = {
        status: r.status,
        code: r.body?.error?.code as string | undefined,
        limit: r.headers.get('ratelimit-limit'),
        remaining: r.headers.get('ratelimit-remaining'),
        reset: Number(r.headers.get('ratelimit-reset')),
      };
      if (got.status !== c.status || got.code !== c.code) problems.push(`${c.name}: ${got.status} ${got.code}`);
      if (got.limit !== String(LIMIT) || got.remaining !== String(LIMIT - used[kind]))
        problems.push(`${c.name}: limit ${got.limit}, remaining ${got.remaining}`);
      if (!(Number.isInteger(got.reset) && got.reset >= 1 && got.reset <= 60))
        problems.push(`${c.name}: reset ${got.reset}`);
    }
    t.deepEqual(problems, []);
  },
);

test.serial('without a valid key the same requests are answered as before and carry no RateLimit header', async (t) => {
  const unknownKey = `service_test_${randomBytes(24).toString('base64url')}`;
  for (const key of [undefined, unknownKey]) {
    for (const c of cases()) {
      const r = await send(c, key);
      const label = `${c.name} (${key ? 'unknown key' : 'no key'})`;
      // No route keeps its code; everything else is 401, a body's refusals too: the key is checked before the body
      // is read.
      const refusal = c.code === 'ROUTE_NOT_FOUND';
      t.is(r.status, refusal ? c.status : 401, label);
      t.is(r.body?.error?.code, refusal ? c.code : 'UNAUTHENTICATED', label);
      for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
        t.is(r.headers.get(h), null, `${label}: ${h}`);
    }
  }
});

test.serial('an exhausted key is 429 on an unknown route too, with the headers', async (t) => {
  const small = await startTestService({
    stores: svc.stores,
    platformKey: svc.platformKey,
    env: { RATE_LIMIT_PER_MINUTE: '2' },
  });
  try {
    // The key is made through the first service: the platform key has already spent more than 2 requests this minute.
    const key = (
      await client(svc.url, svc.platformKey).post('/api/v2/api-keys', {
        type: 'organization_test',
        organizationId: orgId,
        name: 'rl small',
      })
    ).body.key as string;
    const api = client(small.url, key);
    t.is((await api.get('/api/v2/nothing-here')).headers.get('ratelimit-remaining'), '1');
    t.is((await api.get('/api/v2/nothing-here')).headers.get('ratelimit-remaining'), '0');
    const third = await api.get('/api/v2/nothing-here');
    t.is(third.status, 429);
    t.is(third.body.error.code, 'RATE_LIMITED');
    t.is(third.headers.get('ratelimit-remaining'), '0');
    t.truthy(third.headers.get('retry-after'));
  } finally {
    await small.stop();
  }
});
