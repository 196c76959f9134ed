import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { createRedis, type Redis } from '../../src/persistence/redis-client.js';
import { createQueueGauges } from '../../src/observability/queue-gauges.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { startTestStores, type TestStores } from '../helpers/test-service.js';

let stores: TestStores;
let db: Database;
let redis: Redis;
test.before(async () => {
  stores = await startTestStores();
  db = createDatabase(stores.databaseUrl);
  await runMigrations(db.pool);
  redis = await createRedis(stores.redisUrl);
});
test.after.always(async () => {
  await redis?.close();
  await db?.close();
  await stores?.stop();
});

/** Adds one pending e-mail to the outbox. */
async function pendingEmail(): Promise<void> {
  await db.query(
    `INSERT INTO email_outbox (id, platform_id, organization_id, kind, mode, to_address, subject, text_body, html_body,
       status, next_attempt_at, created_at)
     VALUES ($1, 'plt_q', 'org_q', 'booking_confirmation', 'live', 'a@example.com', 's', 't', 'h', 'pending', now(), now())`,
    [`eml_${randomUUID()}`],
  );
}

/** Waits (bounded, 5 s) until `read` answers `want`; answers the last value read. */
async function until(read: () => Promise<number | undefined>, want: number): Promise<number | undefined> {
  const deadline = Date.now() + 5000;
  let v = await read();
  while (v !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    v = await read();
  }
  return v;
}

test('the sampler sets the queue gauges on its own interval, without a scrape asking and without a refresh', async (t) => {
  const metrics = createServiceMetrics();
  const gauges = createQueueGauges(metrics, { db, redis, clock: () => new Date(), intervalMs: 50 });
  const emails = async () => {
    const m = /^scheduling_email_outbox_pending (-?\d+)$/m.exec(await metrics.render('full'));
    return m ? Number(m[1]) : undefined;
  };
  await pendingEmail();
  gauges.start();
  try {
    t.is(await until(emails, 1), 1, 'the first pass, at start');
    await pendingEmail();
    await pendingEmail();
    t.is(await until(emails, 3), 3, 'a later pass of the interval');
  } finally {
    await gauges.stop();
  }
  t.notRegex(await metrics.render('anonymous'), /email_outbox/, 'queue gauges are in the full exposition only');
});

test('a store that does not answer a pass reads -1 in its gauges, the other store still counts', async (t) => {
  const metrics = createServiceMetrics();
  const down = createDatabase('postgres://nobody@127.0.0.1:1/none');
  const gauges = createQueueGauges(metrics, { db: down, redis, clock: () => new Date() });
  try {
    await gauges.refresh();
    const text = await metrics.render('full');
    t.regex(text, /^scheduling_email_outbox_pending -1$/m);
    t.regex(text, /^scheduling_webhook_deliveries_due -1$/m);
    t.regex(text, /^scheduling_timers_due 0$/m);
  } finally {
    await gauges.stop();
    await down.close();
  }
});
