import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** A new organization and a platform client acting in it. */
async function newOrg(externalId: string) {
  const org = (await client(svc.url, svc.platformKey).post('/api/v2/organizations', { externalId, name: externalId }))
    .body;
  return { org, c: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }) };
}

/** Polls an import until it completes (the worker runs in the background). */
async function waitForImport(c: ReturnType<typeof client>, importId: string) {
  for (let i = 0; i < 200; i++) {
    const r = await c.get(`/api/v2/provider-imports/${importId}`);
    if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('import did not finish');
}

const row = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId,
  displayName: `Dr. ${externalId}`,
  ...extra,
});

test('upsert creates, updates, leaves unchanged, reports invalid rows and emits provider_import.completed', async (t) => {
  const { org, c } = await newOrg('imp-upsert');
  await c.post('/api/v2/providers', row('keep', { languageCodes: ['en'] }));
  await c.post('/api/v2/providers', row('change', { languageCodes: ['en'] }));
  const graphBefore = (await c.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion as number;
  const sub = await c.post('/api/v2/provider-imports', {
    providers: [
      row('keep', { languageCodes: ['EN'] }),
      row('change', { languageCodes: ['es'] }),
      row('new-1'),
      { displayName: 'no external id' },
      row('bad-lang', { languageCodes: ['???'] }),
      row('new-1'),
    ],
  });
  t.is(sub.status, 202);
  t.like(sub.body, { status: 'validating', dryRun: false, mode: 'upsert' });
  const job = await waitForImport(c, sub.body.importId);
  t.is(job.status, 'completed');
  t.deepEqual(job.summary, { received: 6, created: 1, updated: 1, unchanged: 1, invalid: 3, deactivated: 0 });
  t.deepEqual(
    job.errors.map((e: any) => [e.row, e.field, e.code]),
    [
      [3, 'externalId', 'VALIDATION_ERROR'],
      [4, 'languageCodes.0', 'VALIDATION_ERROR'],
      [5, 'externalId', 'DUPLICATE_EXTERNAL_ID'],
    ],
  );
  t.deepEqual(
    job.rows.map((r: any) => r.outcome),
    ['unchanged', 'updated', 'created', 'invalid', 'invalid', 'invalid'],
  );
  const changed = (await c.get('/api/v2/providers?externalId=change')).body.data[0];
  t.is(changed.profileVersion, 2);
  t.deepEqual(changed.languageCodes, ['es']);
  t.is((await c.get('/api/v2/providers')).body.total, 3);
  t.is(
    (await c.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion,
    graphBefore + 2,
    'the graph version moves by one per change (1 created, 1 updated)',
  );
  const ev = await svc.service.deps.db.query(
    `SELECT data FROM events WHERE organization_id = $1 AND type = 'provider_import.completed'`,
    [org.id],
  );
  t.is(ev.rowCount, 1);
  t.is(ev.rows[0].data.importId, sub.body.importId);
  t.is((await c.get(`/api/v2/provider-imports?importId=${sub.body.importId}`)).body.importId, sub.body.importId);
});

test('create_only and update_only skip rows as unchanged; deactivateMissing deactivates the rest', async (t) => {
  const { org, c } = await newOrg('imp-modes');
  const graphVersion = async () => (await c.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion as number;
  await c.post('/api/v2/providers', row('a'));
  await c.post('/api/v2/providers', row('b'));
  const co = await waitForImport(
    c,
    (
      await c.post('/api/v2/provider-imports', {
        mode: 'create_only',
        providers: [row('a', { displayName: 'Changed' }), row('c')],
      })
    ).body.importId,
  );
  t.like(co.summary, { created: 1, unchanged: 1, updated: 0 });
  t.is((await c.get('/api/v2/providers?externalId=a')).body.data[0].displayName, 'Dr. a');
  const uo = await waitForImport(
    c,
    (
      await c.post('/api/v2/provider-imports', {
        mode: 'update_only',
        providers: [row('a', { displayName: 'Changed' }), row('zzz')],
      })
    ).body.importId,
  );
  t.like(uo.summary, { created: 0, unchanged: 1, updated: 1 });
  t.is((await c.get('/api/v2/providers?externalId=zzz')).body.total, 0);
  const beforeDeactivation = await graphVersion();
  const dm = await waitForImport(
    c,
    (
      await c.post('/api/v2/provider-imports', {
        deactivateMissing: true,
        providers: [row('a', { displayName: 'Changed' })],
      })
    ).body.importId,
  );
  t.like(dm.summary, { deactivated: 2, unchanged: 1 });
  t.is(await graphVersion(), beforeDeactivation + 2, 'two deactivations, two changes; the unchanged row none');
  t.is((await c.get('/api/v2/providers?status=inactive')).body.total, 2);
});

test('dryRun validates and reports without committing anything', async (t) => {
  const { org, c } = await newOrg('imp-dry');
  const before = (await c.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion;
  const job = await waitForImport(
    c,
    (await c.post('/api/v2/provider-imports', { dryRun: true, providers: [row('x'), row('y'), { externalId: 'z' }] }))
      .body.importId,
  );
  t.true(job.dryRun);
  t.like(job.summary, { received: 3, created: 2, invalid: 1 });
  t.is((await c.get('/api/v2/providers')).body.total, 0);
  t.is((await c.get(`/api/v2/organizations/${org.id}`)).body.providerGraphVersion, before);
  const ev = await svc.service.deps.db.query(
    `SELECT 1 FROM events WHERE organization_id = $1 AND type LIKE 'professional.%'`,
    [org.id],
  );
  t.is(ev.rowCount, 0);
});

test('over 500 providers is 400 TOO_MANY_PROVIDERS; bad envelopes are 400; organization keys cannot import', async (t) => {
  const { org, c } = await newOrg('imp-bad');
  const big = await c.post('/api/v2/provider-imports', {
    providers: Array.from({ length: 501 }, (_, i) => row(`p${i}`)),
  });
  t.is(big.status, 400);
  t.is(big.body.error.code, 'TOO_MANY_PROVIDERS');
  for (const [body, field] of [
    [{}, 'providers'],
    [{ providers: 'x' }, 'providers'],
    [{ providers: [], mode: 'merge' }, 'mode'],
    [{ providers: [], dryRun: 'yes' }, 'dryRun'],
  ] as const) {
    const r = await c.post('/api/v2/provider-imports', body);
    t.is(r.status, 400);
    t.is(r.body.error.field, field);
  }
  const key = (
    await client(svc.url, svc.platformKey).post('/api/v2/api-keys', {
      type: 'organization_test',
      organizationId: org.id,
      name: 'k',
    })
  ).body.key;
  t.is(
    (await client(svc.url, key).post('/api/v2/provider-imports', { providers: [] })).body.error.code,
    'PLATFORM_KEY_REQUIRED',
  );
  t.is((await c.get('/api/v2/provider-imports')).body.data.length, 0);
  // Another organization's import is 403; unknown is 404.
  const { c: other } = await newOrg('imp-other');
  const mine = (await c.post('/api/v2/provider-imports', { providers: [row('q')] })).body.importId;
  t.is((await other.get(`/api/v2/provider-imports/${mine}`)).body.error.code, 'FORBIDDEN');
  t.is((await other.get('/api/v2/provider-imports/imp_nope')).body.error.code, 'IMPORT_NOT_FOUND');
});

test('a 500-row import completes and lists newest first', async (t) => {
  const { c } = await newOrg('imp-500');
  const first = (
    await c.post('/api/v2/provider-imports', {
      providers: Array.from({ length: 500 }, (_, i) => row(`bulk-${i}`, { languageCodes: ['en'] })),
    })
  ).body.importId;
  const job = await waitForImport(c, first);
  t.like(job.summary, { received: 500, created: 500 });
  t.deepEqual(job.progress, { processed: 500, total: 500 });
  const second = (await c.post('/api/v2/provider-imports', { providers: [row('bulk-0', { languageCodes: ['fr'] })] }))
    .body.importId;
  await waitForImport(c, second);
  const list = await c.get('/api/v2/provider-imports');
  t.deepEqual(
    list.body.data.map((j: any) => j.importId),
    [second, first],
  );
  t.is((await c.get('/api/v2/providers')).body.total, 500);
});
