import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { createOrgGraphCache, type OrgGraph } from '../../src/application/resolution/org-graph.js';
import { createGraphSnapshots } from '../../src/application/resolution/graph-snapshots.js';
import { readGraphColumns } from '../../src/application/resolution/read-graph-columns.js';
import { columnsFromChanges, readChangesBase } from '../../src/application/resolution/apply-graph-changes.js';
import { readGraphVersion } from '../../src/persistence/organization-repository.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService, variedOrganization, weekdays } from '../helpers/graph-fixtures.js';
import { loadOrgGraph } from '../helpers/record-org-graph.js';
import { collectedAfterGc } from '../helpers/collected-after-gc.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const clock = () => new Date();

/**
 * Checks that `g` is the organization's graph at its current version exactly as a load of every row makes it: the
 * same column bytes, and the same records as the graph of the rows read whole.
 */
async function sameAsFullRead(t: ExecutionContext, id: string, g: OrgGraph, what: string) {
  const db = svc.service.deps.db;
  const version = await readGraphVersion(db, id);
  t.is(g.graphVersion, version, `${what}: the current version`);
  const full = (await readGraphColumns(db, id)).columns;
  t.true(g.columns!.buffer().equals(full), `${what}: the columns a load of every row reads, byte for byte`);
  const whole = await loadOrgGraph(db, id, version, Date.now());
  t.deepEqual(g.providers, whole.providers, `${what}: providers`);
  t.deepEqual([...g.serviceById.values()], [...whole.serviceById.values()], `${what}: services`);
  t.deepEqual([...g.schedulesByProvider], [...whole.schedulesByProvider], `${what}: schedules`);
  t.deepEqual(
    [...g.servicesBySlug].map(([slug, m]) => [slug, [...m.keys()]]),
    [...whole.servicesBySlug].map(([slug, m]) => [slug, [...m.keys()]]),
    `${what}: services by slug`,
  );
  t.deepEqual([...g.eligibilityIndex.inactive], [...whole.eligibilityIndex.inactive], `${what}: inactive providers`);
}

test('after each kind of change the graph is made from the one held and the changed rows: the columns of a whole load', async (t) => {
  const { o, id } = await variedOrganization(svc, 'chg');
  const db = svc.service.deps.db;
  const problems: string[] = [];
  const graphs = createOrgGraphCache({ db, clock, onSnapshotProblem: (_o, _v, p) => problems.push(p) });
  const first = await graphs(id);
  t.is(first.source, 'rows');
  const providers = (await o.platform.get('/api/v2/providers?limit=50')).body.data as {
    id: string;
    externalId: string;
  }[];
  const full = providers.find((p) => p.externalId === 'full')!;
  const twin = providers.find((p) => p.externalId === 'twin')!;
  const step = async (what: string, change: () => Promise<unknown>) => {
    const before = await readGraphVersion(db, id);
    await change();
    t.true((await readGraphVersion(db, id)) > before, `${what}: the version moved`);
    const g = await graphs(id);
    t.is(g.source, 'changes', `${what}: made from the graph held and its changes`);
    await sameAsFullRead(t, id, g, what);
  };

  await step('a provider edited', () =>
    o.platform.patch(`/api/v2/providers/${full.id}`, { displayName: 'Dr. Edited', languageCodes: ['fr'] }),
  );
  await step('a provider deactivated', () =>
    o.platform.patch(`/api/v2/providers/${twin.id}`, { status: 'inactive', searchable: false }),
  );
  const services = (await o.api.get('/api/v2/services?limit=50')).body.data as { id: string; providerId: string }[];
  await step('a service edited', () =>
    o.api.patch(`/api/v2/services/${services[0]!.id}`, { title: 'Renamed', duration: 45 }),
  );
  await step('a service removed', () => o.api.delete(`/api/v2/services/${services[1]!.id}`));
  const schedules = (await o.api.get('/api/v2/calendar-connections?limit=50')).body.data as { id: string }[];
  await step('a schedule edited', () =>
    o.api.patch(`/api/v2/calendar-connections/${schedules[0]!.id}`, { days: weekdays('10:00', '12:00') }),
  );
  await step('a schedule deleted', () => o.api.delete(`/api/v2/calendar-connections/${schedules[1]!.id}`));
  await step('providers, a service and a schedule added', async () => {
    await providerWithService(o, { externalId: 'late-1', languageCodes: ['de'] });
    await providerWithService(o, { externalId: 'late-2' }, { title: 'Follow-up' });
  });
  // Rows whose ids come first and in the middle of the load's order (written without the API: ids of any kind), with
  // the version moved in their transaction, as every writer of the graph does.
  await step('rows placed first and between others', async () => {
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      for (const pid of ['prv_000000', `${full.id}m`])
        await c.query(
          `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
           SELECT $1, platform_id, organization_id, $1, 'active', true, doc, 1, created_at, updated_at FROM providers WHERE id = $2`,
          [pid, full.id],
        );
      await c.query(
        `INSERT INTO services (id, platform_id, organization_id, provider_id, slug, doc, created_at, updated_at)
         SELECT 'svc_000000', platform_id, organization_id, 'prv_000000', slug, doc, created_at, updated_at FROM services WHERE id = $1`,
        [services[0]!.id],
      );
      await c.query(
        `INSERT INTO calendar_connections (id, platform_id, organization_id, provider_id, doc, created_at, updated_at)
         SELECT 'cal_zzzzzz', platform_id, organization_id, 'prv_000000', doc, created_at, updated_at FROM calendar_connections WHERE id = $1`,
        [schedules[0]!.id],
      );
      await c.query('UPDATE organizations SET graph_version = graph_version + 1 WHERE id = $1', [id]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  });
  await step('a change that writes no graph row', () =>
    db.query('UPDATE organizations SET graph_version = graph_version + 1 WHERE id = $1', [id]),
  );
  t.deepEqual(problems, []);
});

test("a change that needs a string table of two bytes a character, and one that no longer does: each the whole load's columns", async (t) => {
  // Strings are copied as bytes while both tables are of one encoding; these copies go from one to the other.
  const o = await newOrganization(svc, `chgwide-${randomUUID().slice(0, 8)}`);
  const id = o.org.id as string;
  const made = [];
  for (const externalId of ['w-1', 'w-2', 'w-3']) made.push(await providerWithService(o, { externalId }));
  const db = svc.service.deps.db;
  const graphs = createOrgGraphCache({ db, clock });
  t.is((await graphs(id)).source, 'rows');
  const middle = made[1]!.provider.id as string;
  for (const [what, displayName] of [
    ['a name outside latin1 in a latin1 graph', 'Dr. Zoë 名前'],
    ['the only such name back to latin1', 'Dr. Zoë'],
  ] as const) {
    await o.platform.patch(`/api/v2/providers/${middle}`, { displayName });
    const g = await graphs(id);
    t.is(g.source, 'changes', `${what}: made from the graph held and its changes`);
    await sameAsFullRead(t, id, g, what);
  }
});

test('a new process makes the graph from the latest stored snapshot and the rows changed since', async (t) => {
  const { o, id, version } = await variedOrganization(svc, 'chgsnap');
  const db = svc.service.deps.db;
  const snapshots = createGraphSnapshots({ db, clock });
  const old = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.true(await old.snapshotStored);
  t.is(old.graphVersion, version);
  await providerWithService(o, { externalId: 'late' });
  const providers = (await o.platform.get('/api/v2/providers?limit=50')).body.data as { id: string }[];
  await o.platform.patch(`/api/v2/providers/${providers[0]!.id}`, { status: 'inactive' });

  const g = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.is(g.source, 'changes', 'the snapshot of an earlier version and what changed since');
  await sameAsFullRead(t, id, g, 'from the snapshot');
  t.true(await g.snapshotStored, 'the new version is stored');
  const again = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.is(again.source, 'snapshot');
  t.true(again.columns!.buffer().equals(g.columns!.buffer()));
});

test('a base read from a stored snapshot is let go once copied: the new version is opened without it', async (t) => {
  const { o, id, version } = await variedOrganization(svc, 'chgletgo');
  const db = svc.service.deps.db;
  const snapshots = createGraphSnapshots({ db, clock });
  t.true(await (await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id)).snapshotStored);
  await providerWithService(o, { externalId: 'late' });
  const base = await readChangesBase(snapshots, { organizationId: id, graphVersion: version });
  const baseRef = new WeakRef(base!.columns!);
  const made = await columnsFromChanges(db, id, base!, version, 1000);
  t.is(made.status, 'made');
  t.is(base!.columns, undefined, 'the holder let the base go');
  // Collected while the holder and the new columns are still held: nothing of the result references the base.
  t.true(await collectedAfterGc(baseRef), 'the base columns were collected');
  t.true(made.status === 'made' && made.view.counts.providers > 0 && base !== undefined);
});

test('every row is read when the record of changes since the graph held is incomplete or too large', async (t) => {
  const { o, id } = await variedOrganization(svc, 'chgfall');
  const db = svc.service.deps.db;
  let limit = 1000;
  const graphs = createOrgGraphCache({ db, clock, maxChangedIds: () => limit });
  await graphs(id);
  const providers = (await o.platform.get('/api/v2/providers?limit=50')).body.data as { id: string }[];

  // Writes past the limit: every row.
  limit = 1;
  await o.platform.patch(`/api/v2/providers/${providers[0]!.id}`, { displayName: 'One' });
  await o.platform.patch(`/api/v2/providers/${providers[1]!.id}`, { displayName: 'Two' });
  const tooLarge = await graphs(id);
  t.is(tooLarge.source, 'rows', 'two writes against a limit of one');
  await sameAsFullRead(t, id, tooLarge, 'too large');

  // A move of the version missing from the record (pruned, or made before it was kept): every row.
  limit = 1000;
  await o.platform.patch(`/api/v2/providers/${providers[0]!.id}`, { displayName: 'Three' });
  await db.query(
    'DELETE FROM graph_versions WHERE organization_id = $1 AND graph_version = (SELECT graph_version FROM organizations WHERE id = $1)',
    [id],
  );
  const gap = await graphs(id);
  t.is(gap.source, 'rows', 'the versions do not chain');
  await sameAsFullRead(t, id, gap, 'a gap');

  // Pruned by age: the same.
  await o.platform.patch(`/api/v2/providers/${providers[1]!.id}`, { displayName: 'Four' });
  await db.query(`UPDATE graph_versions SET created_at = created_at - interval '2 days' WHERE organization_id = $1`, [
    id,
  ]);
  await db.query(`UPDATE graph_changes SET created_at = created_at - interval '2 days' WHERE organization_id = $1`, [
    id,
  ]);
  const { pruneGraphChanges } = await import('../../src/persistence/graph-change-repository.js');
  await pruneGraphChanges(db, new Date(Date.now() - 24 * 3600_000));
  t.is((await db.query('SELECT 1 FROM graph_changes WHERE organization_id = $1', [id])).rowCount, 0);
  const pruned = await graphs(id);
  t.is(pruned.source, 'rows', 'the record was pruned');
  await sameAsFullRead(t, id, pruned, 'pruned');

  // And from there on, changes again.
  await o.platform.patch(`/api/v2/providers/${providers[1]!.id}`, { displayName: 'Five' });
  const after = await graphs(id);
  t.is(after.source, 'changes');
  await sameAsFullRead(t, id, after, 'after the fallbacks');
});

test('a version moved after the caller read its own: the graph served is of the later one, never older nor mixed', async (t) => {
  const { o, id } = await variedOrganization(svc, 'chgrace');
  const db = svc.service.deps.db;
  // Two processes, each holding the graph.
  const a = createOrgGraphCache({ db, clock });
  const b = createOrgGraphCache({ db, clock });
  await a(id);
  await b(id);
  const providers = (await o.platform.get('/api/v2/providers?limit=50')).body.data as { id: string }[];
  await o.platform.patch(`/api/v2/providers/${providers[0]!.id}`, { displayName: 'First' });
  const read = await readGraphVersion(db, id);
  // The caller read `read`; another change commits before its load reads the changes.
  await o.platform.patch(`/api/v2/providers/${providers[1]!.id}`, { displayName: 'Second' });
  const ga = await a(id, read);
  t.true(ga.graphVersion > read, 'the later version');
  await sameAsFullRead(t, id, ga, 'process a');
  // Both at once in the other process, while a third change commits.
  const [gb] = await Promise.all([
    b(id),
    o.platform.patch(`/api/v2/providers/${providers[2]!.id}`, { displayName: 'Third' }),
  ]);
  t.true(gb.graphVersion >= ga.graphVersion);
  // Of exactly its version: the rows of the version it is labelled with (a third change may have come in or not).
  const now = await readGraphColumns(db, id);
  if (gb.graphVersion === now.graphVersion) t.true(gb.columns!.buffer().equals(now.columns));
  const gb2 = await b(id);
  await sameAsFullRead(t, id, gb2, 'process b');
});
