import test from 'ava';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/launcher/embedded-postgres.js';
import { findFreePort } from '../../src/launcher/find-free-port.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/launcher/private-redis.js';
import { client, type JsonResponse } from '../helpers/http.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTestService } from '../helpers/test-service.js';

const base = () => process.env.TEST_DATA_DIR ?? tmpdir();
const unique = (name: string) => join(base(), `${name}-${randomBytes(4).toString('hex')}`);

/** Repeats a request until `done` holds or `ms` pass; returns the last answer. */
async function pollUntil(
  send: () => Promise<JsonResponse>,
  done: (r: JsonResponse) => boolean,
  ms = 10_000,
): Promise<JsonResponse> {
  const deadline = Date.now() + ms;
  let last = await send();
  while (!done(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await send();
  }
  return last;
}

/** Asserts the contract's 503: SERVICE_UNAVAILABLE, recoverable, with Retry-After. */
function assertUnavailable(t: import('ava').ExecutionContext, r: JsonResponse, what: string) {
  t.is(r.status, 503, what);
  t.is(r.body?.error?.code, 'SERVICE_UNAVAILABLE', what);
  t.true(r.body?.error?.recoverable, what);
  t.regex(r.headers.get('retry-after') ?? '', /^\d+$/, what);
}

test('a Redis outage answers 503 and the service recovers when Redis returns', async (t) => {
  const dir = unique('redis-outage');
  let redis: PrivateRedis = await startPrivateRedis({ dir });
  const database = await createTestDatabase({ schema: 'migrated' });
  const svc = await startTestService({
    stores: { databaseUrl: database.url, redisUrl: redis.url, redis, stop: async () => undefined },
  });
  try {
    const api = client(svc.url, svc.platformKey);
    const org = await api.post('/api/v2/organizations', { externalId: 'redis-outage', name: 'Before outage' });
    t.is(org.status, 200);

    await redis.stop();
    const down = await pollUntil(
      () => api.get(`/api/v2/organizations/${org.body.id}`),
      (r) => r.status !== 200,
      5000,
    );
    assertUnavailable(t, down, 'read during the outage');
    assertUnavailable(
      t,
      await api.post('/api/v2/organizations', { externalId: 'during-outage', name: 'X' }),
      'write during the outage',
    );
    assertUnavailable(t, await client(svc.url).get('/readyz'), '/readyz during the outage');
    t.is((await client(svc.url).get('/healthz')).status, 200, 'the process itself is up');

    redis = await startPrivateRedis({ dir, port: redis.port });
    const back = await pollUntil(
      () => api.get(`/api/v2/organizations/${org.body.id}`),
      (r) => r.status === 200,
    );
    t.is(back.status, 200);
    t.is(back.body.name, 'Before outage');
    t.is(
      (
        await pollUntil(
          () => client(svc.url).get('/readyz'),
          (r) => r.status === 200,
        )
      ).status,
      200,
    );
  } finally {
    await svc.stop();
    await redis.stop();
    await database.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a PostgreSQL outage answers 503 and the service recovers when PostgreSQL returns', async (t) => {
  const pgDir = unique('pg-outage');
  const redisDir = unique('pg-outage-redis');
  // A dedicated cluster on a pinned port, so the same URL works after its restart.
  const port = await findFreePort();
  let pg = await startEmbeddedPostgres({ dir: pgDir, port });
  const redis = await startPrivateRedis({ dir: redisDir });
  const svc = await startTestService({
    stores: { databaseUrl: pg.url, redisUrl: redis.url, redis, stop: async () => undefined },
  });
  try {
    const api = client(svc.url, svc.platformKey);
    const org = await api.post('/api/v2/organizations', { externalId: 'pg-outage', name: 'Before outage' });
    t.is(org.status, 200);

    await pg.stop();
    const down = await pollUntil(
      () => api.get(`/api/v2/organizations/${org.body.id}`),
      (r) => r.status !== 200,
      5000,
    );
    assertUnavailable(t, down, 'read during the outage');
    assertUnavailable(
      t,
      await api.post('/api/v2/organizations', { externalId: 'during-outage', name: 'X' }),
      'write during the outage',
    );
    assertUnavailable(t, await client(svc.url).get('/readyz'), '/readyz during the outage');

    pg = await startEmbeddedPostgres({ dir: pgDir, port });
    const back = await pollUntil(
      () => api.get(`/api/v2/organizations/${org.body.id}`),
      (r) => r.status === 200,
    );
    t.is(back.status, 200);
    t.is(back.body.name, 'Before outage');
    const write = await api.post('/api/v2/organizations', { externalId: 'after-outage', name: 'After' });
    t.is(write.status, 200);
    t.is(
      (
        await pollUntil(
          () => client(svc.url).get('/readyz'),
          (r) => r.status === 200,
        )
      ).status,
      200,
    );
  } finally {
    await svc.stop();
    await pg.stop();
    await redis.stop();
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(redisDir, { recursive: true, force: true });
  }
});
