import test from 'ava';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { detectTransactionPooler } from '../../src/persistence/detect-transaction-pooler.js';
import { findKeyByHash } from '../../src/persistence/api-key-repository.js';
import { hashApiKey } from '../../src/domain/api-key-secret.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { request } from '../helpers/http.js';
import { startTestPgBouncer, type TestPgBouncer } from '../helpers/pgbouncer.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, startTestStores, type TestService, type TestStores } from '../helpers/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The service behind PgBouncer 1.18 in transaction pooling mode (issue 26 item 2): five server connections, kept open
// and handed out in turn, so every transaction of a client may run on another server connection than its last.
let stores: TestStores;
let bouncer: TestPgBouncer;
let svc: TestService;
let direct: Database;
let receiver: WebhookReceiver;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
const POOL_SIZE = 5;

test.before(async () => {
  stores = await startTestStores();
  bouncer = await startTestPgBouncer(stores.databaseUrl, { poolSize: POOL_SIZE });
  direct = createDatabase(stores.databaseUrl, { max: 2 });
  receiver = await startWebhookReceiver();
  // DATABASE_POOL_MODE is left at its default (auto): the service finds out it talks to a pooler.
  svc = await startTestService({
    clock,
    stores: { ...stores, databaseUrl: bouncer.url },
    env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.stop();
  await direct?.close().catch(() => undefined);
  await bouncer?.stop();
  await stores?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };
const attendee = customer;
const db = () => svc.service.deps.db;

/** What PgBouncer logged as refused or failed (a client error it passed on, a pooler error, a refused start-up). */
const bouncerTrouble = () =>
  bouncer
    .log()
    .split('\n')
    .filter((l) => /WARNING|ERROR|FATAL|unsupported|prepared statement/i.test(l));

/** The server connections PostgreSQL has open to the test database, seen on a direct connection. */
async function serverConnections(): Promise<number> {
  const r = await direct.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return r.rows[0].n as number;
}

/** Polls `read` until `done` holds (timers fire on the workers' own schedule), at most ~10 s. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 100 && !done(v); i++) {
    await new Promise((res) => setTimeout(res, 100));
    v = await read();
  }
  return v;
}

test.serial('start-up tells PgBouncer from a direct connection', async (t) => {
  t.true(await detectTransactionPooler(bouncer.url, 'auto'));
  t.false(await detectTransactionPooler(stores.databaseUrl, 'auto'));
  t.true(await detectTransactionPooler(stores.databaseUrl, 'transaction'));
  t.false(await detectTransactionPooler(bouncer.url, 'direct'));
});

test.serial(
  'the booking flow through PgBouncer: resolution, hold, confirm, webhook, v1 create, cancel, timers, inspector',
  async (t) => {
    const o = await newOrganization(svc, `pgb-${randomUUID().slice(0, 8)}`);
    const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
    const hook = await o.api.put('/api/v2/webhooks', {
      url: receiver.url,
      events: ['booking.confirmed', 'booking.cancelled'],
    });
    t.is(hook.status, 200, JSON.stringify(hook.body));

    // Resolution, hold, confirm; the confirmation goes out as a signed webhook.
    const r = await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 3 },
      idem(),
    );
    t.is(r.status, 200, JSON.stringify(r.body));
    const [a] = r.body.options;
    const base = `/api/v2/resolutions/${r.body.resolutionId}`;
    const hold = await o.api.post(`${base}/options/${a.optionId}/hold`, { ttlSeconds: 60 });
    t.is(hold.status, 200, JSON.stringify(hold.body));
    const booking = await o.api.post(
      `${base}/confirm`,
      { optionId: a.optionId, holdId: hold.body.holdId, customer },
      idem(),
    );
    t.is(booking.status, 200, JSON.stringify(booking.body));
    t.is(booking.body.status, 'confirmed');
    const [delivered] = await receiver.waitFor(1, (w) => w.body?.data?.bookingId === booking.body.id, 10_000);
    t.is(delivered?.body.type, 'booking.confirmed');

    // A hold lapses by its durable timer once the clock passes its expiry.
    const r2 = await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-04', to: '2026-03-05' }, maxOptionsPerProvider: 3 },
      idem(),
    );
    t.is(r2.status, 200, JSON.stringify(r2.body));
    const lapsing = r2.body.options[0];
    const base2 = `/api/v2/resolutions/${r2.body.resolutionId}`;
    t.is((await o.api.post(`${base2}/options/${lapsing.optionId}/hold`, { ttlSeconds: 30 })).status, 200);
    clock.advance(31_000);
    const lapsed = await eventually(
      () => o.api.get(`${base2}/options/${lapsing.optionId}/hold`),
      (res) => res.body.status === 'expired',
    );
    t.is(lapsed.body.status, 'expired', JSON.stringify(lapsed.body));

    // v1: create a pending booking of another slot, confirm it by its link, cancel it.
    const slots = await o.api.get(
      `/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-05`,
    );
    t.is(slots.status, 200, JSON.stringify(slots.body));
    const created = await o.api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slots.body.slots[0].id,
      attendee,
    });
    t.is(created.status, 200, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    const confirmed = await request(
      svc.url,
      'GET',
      `/api/v1/bookings/${id}/confirm?token=${created.body.data.tokenToConfirm}`,
      {
        headers: { accept: 'application/json' },
      },
    );
    t.deepEqual(confirmed.body, { bookingId: id, status: 'confirmed' });
    const cancelled = await o.api.post(`/api/v1/bookings/${id}/cancel`, { reason: 'feeling better' });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    t.is(cancelled.body.status, 'cancelled');
    const [cancelHook] = await receiver.waitFor(1, (w) => w.body?.type === 'booking.cancelled', 10_000);
    t.is(cancelHook?.body.data.bookingId, id);

    // The inspector reads the actors and the machine catalogue.
    t.is((await o.api.get('/api/v2/inspector/machines')).status, 200);
    const view = await o.api.get(`/api/v2/inspector/actors/resolution/${r.body.resolutionId}`);
    t.is(view.status, 200, JSON.stringify(view.body));
    t.is((await o.api.get(`/api/v2/inspector/actors/booking/${booking.body.id}`)).status, 200);
    t.is((await o.api.get(`/api/v2/inspector/actors/hold/${hold.body.holdId}`)).status, 200);

    t.deepEqual(bouncerTrouble(), []);
  },
);

test.serial(
  '20 concurrent confirms of one slot through 5 server connections: one booking, 19 SLOT_UNAVAILABLE',
  async (t) => {
    const o = await newOrganization(svc, `pgb-race-${randomUUID().slice(0, 8)}`);
    const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
    const resolutions = [];
    for (let i = 0; i < 20; i++) {
      const r = await o.api.post(
        '/api/v2/resolutions',
        { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 3 },
        idem(),
      );
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      resolutions.push(r.body);
    }
    const start = resolutions[0].options[0].slot.start as string;
    const answers = await Promise.all(
      resolutions.map((r) => {
        const option = r.options.find((x: { slot: { start: string } }) => x.slot.start === start);
        return o.api.post(
          `/api/v2/resolutions/${r.resolutionId}/confirm`,
          { optionId: option.optionId, customer },
          idem(),
        );
      }),
    );
    const winners = answers.filter((x) => x.status === 200);
    t.is(winners.length, 1, JSON.stringify(answers.map((x) => [x.status, x.body?.error?.code])));
    t.true(answers.every((x) => x.status === 200 || (x.status === 409 && x.body.error.code === 'SLOT_UNAVAILABLE')));
    const rows = await direct.query(
      `SELECT count(*)::int AS n FROM bookings WHERE organization_id = $1 AND status = 'confirmed'`,
      [o.org.id],
    );
    t.is(rows.rows[0].n, 1);
    // Many client connections shared few server connections.
    t.true(db().pool.totalCount > POOL_SIZE, `the service opened ${db().pool.totalCount} connections to PgBouncer`);
    t.true((await serverConnections()) <= POOL_SIZE + 1);
    t.deepEqual(bouncerTrouble(), []);
  },
);

test.serial('named statements: each run works through PgBouncer, wherever its transaction lands', async (t) => {
  // findKeyByHash runs a named statement ('api-key-by-hash'); with names kept, its second run lands on a server
  // connection that never prepared it (26000) or on one another client prepared it on (42P05).
  for (let i = 0; i < 3 * POOL_SIZE; i++) t.truthy(await findKeyByHash(db(), hashApiKey(svc.platformKey)));
  await db().transaction(async (tx) => {
    for (let i = 0; i < 3; i++) t.truthy(await findKeyByHash(tx, hashApiKey(svc.platformKey)));
  });
  t.deepEqual(bouncerTrouble(), []);
});

test.serial('the bounds apply to every statement and stay in the transaction that set them', async (t) => {
  const show = async (q: { query: Database['query'] } | pg.PoolClient) =>
    (
      await q.query('SELECT current_setting($1) AS s, current_setting($2) AS l, current_setting($3) AS i', [
        'statement_timeout',
        'lock_timeout',
        'idle_in_transaction_session_timeout',
      ])
    ).rows[0];
  // The production defaults: 5 s statements, 2 s lock waits.
  t.deepEqual(await show(db()), { s: '5s', l: '2s', i: '5s' });
  t.deepEqual(await db().transaction((tx) => show(tx)), { s: '5s', l: '2s', i: '5s' });
  // A statement past the bound is cancelled by PostgreSQL: 503, not a hang.
  const slow = await db()
    .query('SELECT pg_sleep(6)')
    .then(
      () => undefined,
      (err: unknown) => err as { code?: string; status?: number },
    );
  t.is(slow?.code, 'SERVICE_UNAVAILABLE');
  // A client of PgBouncer that set nothing sees the server's defaults on every server connection: nothing leaked.
  const plain = new pg.Client({ connectionString: bouncer.url });
  await plain.connect();
  try {
    for (let i = 0; i < POOL_SIZE; i++)
      t.deepEqual(await show(plain as unknown as pg.PoolClient), { s: '0', l: '0', i: '0' });
  } finally {
    await plain.end();
  }
});

test.serial('migrations through PgBouncer: several at once, none left holding the migration lock', async (t) => {
  const fresh = await createFreshDatabase();
  const through = new URL(bouncer.url);
  through.pathname = `/${fresh.name}`;
  const pools = [0, 1, 2].map(() => createDatabase(through.toString(), { max: 2, transactionPooler: true }));
  try {
    const applied = await Promise.all(pools.map((d) => runMigrations(d.pool)));
    const all = applied.flat().sort((x, y) => x - y);
    t.deepEqual(all, [...new Set(all)], 'each migration applied once');
    t.true(all.length > 0);
    t.deepEqual(await runMigrations(pools[0]!.pool), []);
    // A session-level lock taken through the pooler would stay on whichever server connection took it.
    // Only this database's: other test files share the server, and their transactions take advisory locks meanwhile.
    const locks = await direct.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'
         AND database = (SELECT oid FROM pg_database WHERE datname = $1)`,
      [fresh.name],
    );
    t.is(locks.rows[0].n, 0);
  } finally {
    for (const d of pools) await d.close().catch(() => undefined);
    await fresh.drop();
  }
});

/** A second empty database on the test's server (dropped by `drop`, past PgBouncer's server connections to it). */
async function createFreshDatabase(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `t_pgb_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await direct.query(`CREATE DATABASE ${name}`);
  return {
    name,
    async drop() {
      await direct.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    },
  };
}
