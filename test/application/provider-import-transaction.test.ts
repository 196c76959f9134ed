import test from 'ava';
import type pg from 'pg';
import { processProviderImport } from '../../src/application/process-provider-import.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { claimProviderImport } from '../../src/persistence/provider-import-repository.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// An import job's transaction (processProviderImport) run by the test itself: the service has no workers role, so no
// worker of its own claims the jobs submitted. The job runs on a pool with the service's bounds set low: statements
// and idle time in a transaction 1 s, lock waits 3 s.
let svc: TestService;
let bounded: Database;
let plain: Database;
test.before(async () => {
  svc = await startTestService({ env: { SERVICE_ROLES: 'gateway,grpc' } });
  bounded = createDatabase(svc.stores.databaseUrl, {
    timeouts: { statementMs: 1000, lockMs: 3000, poolWaitMs: 3000, transactionMs: 0 },
  });
  plain = createDatabase(svc.stores.databaseUrl);
});
test.after.always(async () => {
  await bounded?.close();
  await plain?.close();
  await svc?.stop();
});

const row = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId,
  displayName: `Dr. ${externalId}`,
  ...extra,
});

/** A new organization with providers `externalIds`; its client and the providers' ids by externalId. */
async function organization(name: string, externalIds: string[]) {
  const org = (await client(svc.url, svc.platformKey).post('/api/v2/organizations', { externalId: name, name })).body;
  const c = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
  const ids = new Map<string, string>();
  for (const e of externalIds) ids.set(e, (await c.post('/api/v2/providers', row(e))).body.id);
  return { c, ids };
}

/** Submits an import and runs its job to the end on the bounded pool, with `clock`; answers the finished job. */
async function runImport(c: ReturnType<typeof client>, body: Record<string, unknown>, clock = () => new Date()) {
  const importId = (await c.post('/api/v2/provider-imports', body)).body.importId as string;
  const job = await claimProviderImport(bounded, new Date());
  if (job?.id !== importId) throw new Error(`claimed ${job?.id}, not ${importId}`);
  await processProviderImport(bounded, job, clock);
  return (await c.get(`/api/v2/provider-imports/${importId}`)).body;
}

/** Runs `fn` while a transaction of its own holds provider `id` locked (a REST edit under way); then rolls it back. */
async function whileLocked<T>(id: string, fn: (holder: pg.PoolClient) => Promise<T>): Promise<T> {
  const holder = await plain.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM providers WHERE id = $1 FOR UPDATE', [id]);
    return await fn(holder);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
  }
}

test.serial(
  "an import job's transaction is bounded as a job's, not a request's: its process held past them",
  async (t) => {
    const { c } = await organization('imp-held', ['a', 'b']);
    // A clock that takes 1.5 s to answer stands for the job's process held by other work (a graph copy on a loaded host)
    // while the transaction waits idle: past the 1 s of a request's bound, twice (before the first statement, and
    // before the last ones).
    const held = () => {
      const until = Date.now() + 1500;
      while (Date.now() < until);
      return new Date();
    };
    const job = await runImport(c, { providers: [row('a', { displayName: 'Changed' }), row('new')] }, held);
    t.is(job.status, 'completed');
    t.like(job.summary, { received: 2, created: 1, updated: 1 });
    t.is((await c.get('/api/v2/providers?externalId=a')).body.data[0].displayName, 'Changed');
  },
);

test.serial(
  'an import reads and locks only its own providers: an edit under way of another does not hold it',
  async (t) => {
    const { c, ids } = await organization('imp-others', ['a', 'b', 'c']);
    const job = await whileLocked(ids.get('c')!, () =>
      runImport(c, { providers: [row('a', { displayName: 'Changed' }), row('d')] }),
    );
    t.is(job.status, 'completed');
    t.like(job.summary, { created: 1, updated: 1, unchanged: 0 });
    t.is((await c.get('/api/v2/providers')).body.total, 4);
  },
);

test.serial(
  'deactivateMissing locks only what it changes: an edit under way of a provider already inactive does not hold it',
  async (t) => {
    const { c, ids } = await organization('imp-deactivate', ['a', 'b', 'off']);
    const off = await c.patch(`/api/v2/providers/${ids.get('off')}`, {
      status: 'inactive',
      searchable: false,
    });
    t.is(off.status, 200, JSON.stringify(off.body));
    const job = await whileLocked(ids.get('off')!, () =>
      runImport(c, { deactivateMissing: true, providers: [row('a')] }),
    );
    t.is(job.status, 'completed');
    t.like(job.summary, { unchanged: 1, deactivated: 1 });
    t.deepEqual(
      job.rows.filter((r: any) => r.outcome === 'deactivated').map((r: any) => r.externalId),
      ['b'],
    );
    const b = (await c.get('/api/v2/providers?externalId=b')).body.data[0];
    t.like(b, { status: 'inactive', searchable: false });
  },
);

test.serial(
  'an edit under way of a provider the job imports holds it; the job then changes the edited row',
  async (t) => {
    const { c, ids } = await organization('imp-serial', ['a']);
    const a = ids.get('a')!;
    const job = await whileLocked(a, async (holder) => {
      const running = runImport(c, { providers: [{ externalId: 'a', languageCodes: ['fr'] }] });
      running.catch(() => undefined);
      // The job waits for the row's lock (seen in pg_stat_activity), then the edit commits.
      for (let i = 0; ; i++) {
        const waiting = await plain.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (waiting.rowCount! > 0) break;
        if (i > 200) throw new Error('the job never waited for the edited row');
        await new Promise((r) => setTimeout(r, 10));
      }
      await holder.query(
        `UPDATE providers SET doc = doc || '{"displayName":"Edited"}', profile_version = profile_version + 1 WHERE id = $1`,
        [a],
      );
      await holder.query('COMMIT');
      return running;
    });
    t.is(job.status, 'completed');
    t.like(job.summary, { updated: 1 });
    const after = (await c.get('/api/v2/providers?externalId=a')).body.data[0];
    t.like(after, { displayName: 'Edited', profileVersion: 3 });
    t.deepEqual(after.languageCodes, ['fr']);
  },
);
