import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from '@redis/client';
import { startPrivateRedis } from '../../src/launcher/private-redis.js';
import { newOrganization } from '../helpers/graph-fixtures.js';
import { metricSample, scrapeMetrics, TEST_METRICS_TOKEN } from '../helpers/metric-sample.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';

/** The queue sampler's period in production (src/observability/queue-gauges.ts); the tests never shorten it. */
const SAMPLE_INTERVAL_MS = 10_000;

/**
 * Stores no other test file shares, with a redis-server of their own even when TEST_REDIS_URL is set: Redis's
 * commandstats count every client of the server, so only this file's service may talk to it.
 */
async function privateStores(): Promise<TestStores> {
  const database = await createTestDatabase({ schema: 'migrated' });
  const redis = await startPrivateRedis({
    dir: join(process.env.TEST_DATA_DIR ?? '/tmp', `redis-${randomBytes(4).toString('hex')}`),
  });
  return {
    databaseUrl: database.url,
    redisUrl: redis.url,
    redis,
    async stop() {
      await redis.stop();
      await database.drop().catch(() => undefined);
    },
  };
}

// `quiet` runs the API roles only (no worker polls the stores), so every store command it sends is a scrape's, the
// readiness probe's PING or a pass of the queue sampler. `busy` runs every role with the production admission limits.
let quiet: TestService;
let busy: TestService;
const stores: TestStores[] = [];
test.before(async () => {
  stores.push(await privateStores(), await startTestStores());
  // One after the other: two start-ups at once on a loaded machine can wait past the pool's connection bound.
  quiet = await startTestService({
    stores: stores[0],
    env: { SERVICE_ROLES: 'gateway,grpc', METRICS_TOKEN: TEST_METRICS_TOKEN },
  });
  busy = await startTestService({
    stores: stores[1],
    // An empty setting is the default: the admission limits and the pool's waiter bound as in production.
    env: {
      MAX_IN_FLIGHT_REQUESTS: '',
      MAX_IN_FLIGHT_CALLS: '',
      PG_POOL_MAX_WAITERS: '',
      METRICS_TOKEN: TEST_METRICS_TOKEN,
    },
  });
});
test.after.always(async () => {
  for (const s of [quiet, busy]) await s?.stop();
  for (const s of stores) await s.stop();
});

/** Calls of each Redis command the server has run so far, by command name, from an INFO commandstats answer. */
function commandCalls(info: string): Map<string, number> {
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

test.serial('50 scrapes of the full exposition send PostgreSQL and Redis no command at all', async (t) => {
  const pool = quiet.service.deps.db.pool;
  let checkouts = 0;
  const onAcquire = () => checkouts++;
  pool.on('acquire', onAcquire);
  // One connection of the test's own, opened before the count: its INFO calls are the only commands it adds.
  const stats = createClient({ url: quiet.stores.redisUrl });
  await stats.connect();
  try {
    // A sampler pass restarts the interval: for SAMPLE_INTERVAL_MS from here only scrapes and the probe's PING run.
    await quiet.service.queueGauges.refresh();
    const started = Date.now();
    const redisBefore = commandCalls(await stats.info('commandstats'));
    checkouts = 0;
    for (let round = 0; round < 5; round++)
      await Promise.all(Array.from({ length: 10 }, () => scrapeMetrics(quiet.url, TEST_METRICS_TOKEN)));
    const poolCheckouts = checkouts;
    const redisAfter = commandCalls(await stats.info('commandstats'));
    t.true(Date.now() - started < SAMPLE_INTERVAL_MS, 'the scrapes ran within one sampler interval');
    t.is(poolCheckouts, 0, 'no scrape took a PostgreSQL connection');
    const sent = [...redisAfter]
      .filter(([cmd]) => cmd !== 'info' && cmd !== 'ping')
      .map(([cmd, calls]) => [cmd, calls - (redisBefore.get(cmd) ?? 0)] as const)
      .filter(([, calls]) => calls > 0);
    t.deepEqual(sent, [], 'no scrape sent a Redis command');
  } finally {
    pool.off('acquire', onAcquire);
    await stats.close();
  }
});

test.serial(
  'the queue gauges follow the queues: a scrape reads the last sample, the next pass reads the stores',
  async (t) => {
    const gauge = async (name: string) => (await metricSample(quiet.url, name, TEST_METRICS_TOKEN)) ?? NaN;
    await quiet.service.queueGauges.refresh();
    const refreshed = Date.now();
    const emailBefore = await gauge('scheduling_email_outbox_pending');
    const timersBefore = await gauge('scheduling_timers_due');
    t.true(emailBefore >= 0 && timersBefore >= 0, 'the stores answered the pass');

    const db = new pg.Client({ connectionString: quiet.stores.databaseUrl });
    await db.connect();
    const redis = createClient({ url: quiet.stores.redisUrl });
    await redis.connect();
    try {
      const now = quiet.clock();
      for (let i = 0; i < 3; i++)
        await db.query(
          `INSERT INTO email_outbox (id, platform_id, organization_id, kind, mode, to_address, subject, text_body,
           html_body, status, next_attempt_at, created_at)
         VALUES ($1, 'plt_gauge', 'org_gauge', 'booking_confirmation', 'live', 'a@example.com', 's', 't', 'h',
           'pending', $2, $2)`,
          [`eml_${randomUUID()}`, now],
        );
      // Timers due a second ago; this service runs no timer worker, so they stay due.
      await redis.zAdd('{timers}:due', [
        { score: now.getTime() - 1000, value: `gauge-test:${randomUUID()}` },
        { score: now.getTime() - 1000, value: `gauge-test:${randomUUID()}` },
      ]);
    } finally {
      await db.end();
      await redis.close();
    }

    const stale = await gauge('scheduling_email_outbox_pending');
    if (Date.now() - refreshed < SAMPLE_INTERVAL_MS) t.is(stale, emailBefore, 'a scrape does not count the outbox');
    await quiet.service.queueGauges.refresh();
    t.is(await gauge('scheduling_email_outbox_pending'), emailBefore + 3);
    t.is(await gauge('scheduling_timers_due'), timersBefore + 2);
  },
);

test('30 scrapers at once do not make API calls answer 503: scrapes take no PostgreSQL connection from them', async (t) => {
  const o = await newOrganization(busy, 'scrape-load');
  const shedBefore =
    (await metricSample(busy.url, 'scheduling_admission_shed_total{gate="pg_pool"}', TEST_METRICS_TOKEN)) ?? 0;
  let calling = true;
  let scrapes = 0;
  const scrapeStatuses = new Map<number, number>();
  const scrapers = Array.from({ length: 30 }, async () => {
    while (calling) {
      const res = await fetch(`${busy.url}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
      await res.arrayBuffer();
      scrapes++;
      scrapeStatuses.set(res.status, (scrapeStatuses.get(res.status) ?? 0) + 1);
    }
  });
  const statuses: number[] = [];
  try {
    // Let the scrapers get going before the calls.
    while (scrapes < 30) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 20; i++) statuses.push((await o.api.get(`/api/v2/organizations/${o.org.id}`)).status);
  } finally {
    calling = false;
    await Promise.all(scrapers);
  }
  t.deepEqual(statuses, Array(20).fill(200), 'every API call answered 200');
  t.deepEqual([...scrapeStatuses], [[200, scrapes]], 'every scrape answered 200');
  t.true(scrapes >= 60, `the scrapers kept scraping during the calls (${scrapes} scrapes)`);
  t.is(
    (await metricSample(busy.url, 'scheduling_admission_shed_total{gate="pg_pool"}', TEST_METRICS_TOKEN)) ?? 0,
    shedBefore,
    'no PostgreSQL checkout was refused',
  );
});
