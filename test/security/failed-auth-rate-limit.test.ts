import test from 'ava';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { OrganizationServiceClient } from '../../src/gen/scheduling/v1/organization_service.js';
import { client, request } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { decodeServiceError, errorCodeOfTrailers } from '../../src/grpc/error-metadata.js';

// Issue 21 item 3: requests with unknown keys were never limited (1,500 answered 401 in 14 s). Failed
// authentications are counted per client address (in Redis, so across processes) and, past the limit of a minute,
// answered 429 RATE_LIMITED with Retry-After; a valid key from the same address is never refused by it. The service
// runs with its production default (FAILED_AUTH_LIMIT_PER_MINUTE) and the test clock, which decides the window.

let svc: TestService;
let limit: number;
test.before(async () => {
  svc = await startTestService();
  limit = svc.config.failedAuthLimitPerMinute;
});
test.after.always(async () => {
  await svc?.stop();
});

const unknownKey = () => `service_test_${randomBytes(24).toString('base64url')}`;

/** A GET with an unknown key sent from `localAddress` (a loopback address): status, Retry-After and error code. */
function failFrom(localAddress: string): Promise<{ status: number; retryAfter?: string; code?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${svc.url}/api/v2/providers`,
      { localAddress, headers: { authorization: `Bearer ${unknownKey()}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            code: JSON.parse(Buffer.concat(chunks).toString('utf8')).error?.code,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sends `n` failing requests from 127.0.0.1, ten at a time, half with a body (refused before it is read); statuses. */
async function failMany(n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < n; sent += 10) {
    const batch = Array.from({ length: Math.min(10, n - sent) }, (_, i) =>
      i % 2 === 0
        ? request(svc.url, 'GET', '/api/v2/providers', { key: unknownKey() })
        : request(svc.url, 'POST', '/api/v2/providers', { key: unknownKey(), body: { displayName: 'x' } }),
    );
    statuses.push(...(await Promise.all(batch)).map((r) => r.status));
  }
  return statuses;
}

test.serial(
  'past the limit of failed authentications a minute, an address gets 429 RATE_LIMITED; its valid key still works',
  async (t) => {
    t.true(limit >= 100, `the production default (${limit}) leaves room for clients that get a key wrong`);
    const statuses = await failMany(limit);
    t.deepEqual([...new Set(statuses)], [401], 'every failure up to the limit is a 401');

    for (const r of [
      await request(svc.url, 'GET', '/api/v2/providers', { key: unknownKey() }),
      await request(svc.url, 'POST', '/api/v2/providers', { key: unknownKey(), body: { displayName: 'x' } }),
      await request(svc.url, 'GET', '/api/v2/providers'),
    ]) {
      t.is(r.status, 429);
      t.like(r.body.error, { code: 'RATE_LIMITED', status: 429, recoverable: true });
      const retryAfter = Number(r.headers.get('retry-after'));
      t.true(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      t.is(r.headers.get('ratelimit-limit'), null, 'no key was valid: no key rate limit state');
    }

    // Only failures are refused: the platform's valid key from the same address works, with and without a body.
    const platform = client(svc.url, svc.platformKey);
    t.is((await platform.get('/api/v2/providers')).status, 200);
    const created = await platform.post('/api/v2/organizations', { externalId: 'after-429', name: 'After the 429s' });
    t.is(created.status, 200);

    // Another address is counted on its own.
    t.like(await failFrom('127.0.0.2'), { status: 401, code: 'UNAUTHENTICATED' });
    t.like(await failFrom('127.0.0.1'), { status: 429, code: 'RATE_LIMITED' });

    // The next minute starts a new count.
    svc.clock.advance(60_000);
    t.like(await failFrom('127.0.0.1'), { status: 401, code: 'UNAUTHENTICATED' });
  },
);

test.serial('direct gRPC callers are counted by their address too', async (t) => {
  svc.clock.advance(60_000);
  const orgs = new OrganizationServiceClient(svc.grpcTarget, credentials.createInsecure());
  const call = (key: string) =>
    new Promise<ServiceError | null>((resolve) => {
      const md = new Metadata();
      md.set('authorization', `Bearer ${key}`);
      orgs.listOrganizations({}, md, { deadline: Date.now() + 10_000 }, (err) => resolve(err));
    });
  try {
    for (let i = 0; i < limit; i++) t.is((await call(unknownKey()))?.code, status.UNAUTHENTICATED);
    const over = await call(unknownKey());
    t.is(over?.code, status.RESOURCE_EXHAUSTED);
    t.is(errorCodeOfTrailers(over?.metadata), 'RATE_LIMITED');
    t.true((decodeServiceError(over!).retryAfter ?? 0) >= 1);
    t.is(await call(svc.platformKey), null, 'a valid key is served');
  } finally {
    orgs.close();
  }
});
