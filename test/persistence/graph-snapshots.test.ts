import test from 'ava';
import { gzipSync } from 'node:zlib';
import { createOrgGraphCache, toDomainProvider, type OrgGraph } from '../../src/application/resolution/org-graph.js';
import { loadOrgGraph } from '../helpers/record-org-graph.js';
import { createGraphSnapshots } from '../../src/application/resolution/graph-snapshots.js';
import { encodeGraphColumns } from '../../src/application/resolution/graph-columns-writer.js';
import { readGraphColumns } from '../../src/application/resolution/read-graph-columns.js';
import { readGraphVersion } from '../../src/persistence/organization-repository.js';
import {
  createGraphSnapshotBuildStep,
  MOVING_BUILD_MS,
  MOVING_BUILD_SOON_MS,
} from '../../src/workers/graph-snapshot-builder.js';
import { toProviderView } from '../../src/persistence/provider-repository.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService, variedOrganization } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
});
test.after.always(async () => {
  await svc?.stop();
});

/** What a resolution reads of a graph, for comparing two loads of one version. */
function contentOf(g: OrgGraph) {
  const index = g.eligibilityIndex;
  return {
    providers: g.providers,
    keys: g.providers.map((p) => Object.keys(p)),
    services: [...g.serviceById.values()],
    slugs: [...g.servicesBySlug].map(([slug, m]) => [slug, [...m.keys()]]),
    schedules: [...g.schedulesByProvider],
    feeds: g.feedSchedules,
    index: {
      words: index.words,
      sets: [index.all, index.inactive, index.notSearchable, index.panelFull, index.acceptsYes, index.acceptsNo].map(
        (s) => [...s],
      ),
      fields: Object.entries(index.fields).map(([f, a]) => [
        f,
        [...a.empty],
        [...a.byValue].map(([v, s]) => [v, [...s]]),
      ]),
      licenses: [...index.licenses.byRegion],
      subdivisions: [...index.subdivisionsOfCountry].map(([c, s]) => [c, [...s]]),
    },
  };
}

/** Whether a graph's columns are byte for byte those a load of every row of its organization reads now. */
const sameAsRows = async (g: OrgGraph, orgId: string) =>
  g.columns!.buffer().equals((await readGraphColumns(svc.service.deps.db, orgId)).columns);

const snapshotRows = async (orgId: string) =>
  (
    await svc.service.deps.db.query(
      'SELECT graph_version, part, parts, length(body) AS bytes FROM graph_snapshots WHERE organization_id = $1 ORDER BY graph_version, part',
      [orgId],
    )
  ).rows;

test('a graph read from its stored snapshot equals the graph read from its rows, and both equal the full rows mapped', async (t) => {
  const { id, version } = await variedOrganization(svc, 'snap');
  const db = svc.service.deps.db;
  const clock = () => new Date();
  const snapshots = createGraphSnapshots({ db, clock });
  const first = createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 });
  const fromRows = await first(id);
  t.is(fromRows.source, 'rows', 'no snapshot yet: the rows');
  t.true(await fromRows.snapshotStored, 'the snapshot is written after the load');
  t.like(await snapshotRows(id), [{ graph_version: version, part: 0, parts: 1 }]);

  // Another process (a new cache) reads the stored snapshot of the current version.
  const fromSnapshot = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.is(fromSnapshot.source, 'snapshot');
  t.deepEqual(contentOf(fromSnapshot), contentOf(fromRows));
  t.deepEqual(contentOf(fromSnapshot), contentOf(await loadOrgGraph(db, id, version, Date.now())));
  const rows = (await db.query('SELECT * FROM providers WHERE organization_id = $1 ORDER BY id', [id])).rows;
  t.deepEqual(
    fromSnapshot.providers,
    rows.map((r) => toDomainProvider(toProviderView(r))),
  );
  const [full, twin] = fromSnapshot.providers.filter((p) => p.externalId !== 'bare');
  t.is(full!.languageCodes, twin!.languageCodes, 'equal code lists come back as one shared list');
  t.not(full!.licenseRecords, twin!.licenseRecords);
  t.true(Math.abs(fromSnapshot.approxBytes - fromRows.approxBytes) < fromRows.approxBytes / 2);
});

test('a snapshot of an older version is not taken for the current one: the graph is made from it and the rows changed since, and the new version stored', async (t) => {
  const { o, id, version } = await variedOrganization(svc, 'snap');
  const db = svc.service.deps.db;
  const clock = () => new Date();
  const snapshots = createGraphSnapshots({ db, clock });
  const old = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.true(await old.snapshotStored);
  const added = await providerWithService(o, { externalId: 'late' });
  const now = await readGraphVersion(db, id);
  t.true(now > version);

  const g = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.is(g.source, 'changes', 'the stored snapshot is of an earlier version: it and the changed rows');
  t.is(g.graphVersion, now);
  t.truthy(g.providerById.get(added.provider.id), 'the provider added after the old snapshot is there');
  t.true(await g.snapshotStored);
  t.deepEqual(
    (await snapshotRows(id)).map((r) => r.graph_version),
    [version, now],
    'the older version is kept (resolutions made on it read it for their candidates)',
  );
  const again = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
  t.is(again.source, 'snapshot');
  t.deepEqual(contentOf(again), contentOf(g));
});

test('a damaged, cut or mislabelled snapshot is not used: the graph is read from its rows', async (t) => {
  const { id, version } = await variedOrganization(svc, 'snap');
  const db = svc.service.deps.db;
  const clock = () => new Date();
  const snapshots = createGraphSnapshots({ db, clock });
  const reference = await loadOrgGraph(db, id, version, Date.now());
  const key = { organizationId: id, graphVersion: version };
  await snapshots.write(key, (await readGraphColumns(db, id)).columns);
  const good = (await db.query('SELECT body FROM graph_snapshots WHERE organization_id = $1', [id])).rows[0]
    .body as Buffer;
  const flipped = Buffer.from(good);
  flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
  const mislabelled = gzipSync(
    await encodeGraphColumns(
      { organizationId: id, graphVersion: version - 1 },
      { providers: reference.providers, services: [], schedules: [], sharedBytes: 0 },
    ),
  );
  const cases: [string, Buffer, string][] = [
    ['a flipped byte', flipped, 'unreadable'],
    ['cut short', good.subarray(0, Math.floor(good.length / 2)), 'unreadable'],
    ['not gzip', Buffer.from('not a snapshot'), 'unreadable'],
    ["another version's columns", mislabelled, 'unreadable'],
  ];
  for (const [what, body, reason] of cases) {
    await db.query('UPDATE graph_snapshots SET body = $2 WHERE organization_id = $1', [id, body]);
    const problems: string[] = [];
    const g = await createOrgGraphCache({
      db,
      clock,
      snapshots,
      snapshotMinProviders: 1000,
      onSnapshotProblem: (_org, v, p) => problems.push(`${v} ${p}`),
    })(id);
    t.is(g.source, 'rows', what);
    t.deepEqual(contentOf(g), contentOf(reference), what);
    t.true(problems.length === 1 && problems[0]!.startsWith(`${version} ${reason}`), `${what}: ${problems.join()}`);
  }
  await db.query('UPDATE graph_snapshots SET format = format + 1 WHERE organization_id = $1', [id]);
  const problems: string[] = [];
  const g = await createOrgGraphCache({
    db,
    clock,
    snapshots,
    onSnapshotProblem: (_org, _v, p) => problems.push(p),
  })(id);
  t.is(g.source, 'rows', 'a snapshot of another format');
  t.deepEqual(problems, ['other_format']);
  t.false(await g.snapshotStored, 'a graph under snapshotMinProviders gets no snapshot');
});

test.serial(
  'a snapshot of another format or damaged is written over by the next load; the builder rebuilds one of another format',
  async (t) => {
    const { id, version } = await variedOrganization(svc, 'over');
    const db = svc.service.deps.db;
    const clock = () => new Date();
    const snapshots = createGraphSnapshots({ db, clock });
    const load = () => createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(id);
    t.true(await (await load()).snapshotStored);
    const stored = async () =>
      (
        await db.query('SELECT graph_version, format, body FROM graph_snapshots WHERE organization_id = $1', [id])
      ).rows.map((r) => ({ version: Number(r.graph_version), format: r.format as number, body: r.body as Buffer }));
    const [good] = await stored();
    t.is(good!.version, version);

    // Written before an upgrade: read from the rows, then stored in this format.
    await db.query('UPDATE graph_snapshots SET format = format + 1 WHERE organization_id = $1', [id]);
    const afterUpgrade = await load();
    t.is(afterUpgrade.source, 'rows');
    t.true(await afterUpgrade.snapshotStored);
    t.is((await load()).source, 'snapshot', 'the next process reads the snapshot written over it');
    t.true((await stored()).every((r) => r.format === good!.format));

    // Damaged: the same.
    const flipped = Buffer.from(good!.body);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    await db.query('UPDATE graph_snapshots SET body = $2 WHERE organization_id = $1', [id, flipped]);
    const afterDamage = await load();
    t.is(afterDamage.source, 'rows');
    t.true(await afterDamage.snapshotStored);
    t.is((await load()).source, 'snapshot');
    t.true(await sameAsRows(await load(), id));

    // The builder: a graph whose current version's snapshot is of another format is due, and built once settled.
    await db.query('UPDATE graph_snapshots SET format = format + 1 WHERE organization_id = $1', [id]);
    const step = createGraphSnapshotBuildStep({ db, clock });
    const builtBy = async () => {
      const built: string[] = [];
      for (let org = await step(); org !== undefined; org = await step()) built.push(org);
      return built;
    };
    t.false((await builtBy()).includes(id), 'first seen: not yet settled');
    t.true((await builtBy()).includes(id), 'settled over a step: built');
    t.deepEqual(
      (await stored()).map((r) => [r.version, r.format]),
      [[version, good!.format]],
    );
  },
);

test('a graph loaded after its version moved is of the version its rows are of, and stored as that one', async (t) => {
  const { id, version } = await variedOrganization(svc, 'snap');
  const db = svc.service.deps.db;
  const clock = () => new Date();
  const problems: string[] = [];
  const cache = createOrgGraphCache({
    db,
    clock,
    snapshots: createGraphSnapshots({ db, clock }),
    snapshotMinProviders: 0,
    onSnapshotProblem: (_org, _v, p) => problems.push(p),
  });
  // A caller that read the version just before the last change: the rows it loads are of the later version.
  const g = await cache(id, version - 1);
  t.is(g.source, 'rows');
  t.is(g.graphVersion, version, 'labelled with the version of its rows, not the one asked for');
  t.true(await g.snapshotStored);
  t.deepEqual(
    (await snapshotRows(id)).map((r) => r.graph_version),
    [version],
  );
  t.deepEqual(contentOf(g), contentOf(await loadOrgGraph(db, id, version, Date.now())));
  t.deepEqual(problems, []);
});

test.serial(
  'the builder stores the snapshot of a changed graph once its version has settled, and only for graphs that had one',
  async (t) => {
    const large = await variedOrganization(svc, 'snap');
    const small = await variedOrganization(svc, 'snap');
    const db = svc.service.deps.db;
    const clock = () => new Date();
    const snapshots = createGraphSnapshots({ db, clock });
    t.true(
      await (
        await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(large.id)
      ).snapshotStored,
    );
    await providerWithService(large.o, { externalId: 'changed' });
    await providerWithService(small.o, { externalId: 'changed' });
    const now = await readGraphVersion(db, large.id);
    const step = createGraphSnapshotBuildStep({ db, clock });
    const builtBy = async () => {
      const built: string[] = [];
      for (let org = await step(); org !== undefined; org = await step()) built.push(org);
      return built;
    };
    t.false((await builtBy()).includes(large.id), 'first seen at this version: not yet settled');
    await providerWithService(large.o, { externalId: 'again' });
    const settled = await readGraphVersion(db, large.id);
    t.true(settled > now);
    t.false((await builtBy()).includes(large.id), 'moved since the previous step: not yet');
    t.true((await builtBy()).includes(large.id), 'unchanged over a step: built');
    t.deepEqual(
      (await snapshotRows(large.id)).map((r) => r.graph_version),
      [large.version, settled],
    );
    t.deepEqual(
      await snapshotRows(small.id),
      [],
      'a graph under GRAPH_SNAPSHOT_MIN_PROVIDERS that never had a snapshot is left to the resolving process',
    );
    const g = await createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 0 })(large.id);
    t.is(g.source, 'snapshot');
    t.deepEqual(contentOf(g), contentOf(await loadOrgGraph(db, large.id, settled, Date.now())));
    t.true(
      await sameAsRows(g, large.id),
      'built from the earlier snapshot and the changes: the columns of every row read',
    );
  },
);

test.serial(
  'a graph that keeps moving is built once it has been due MOVING_BUILD_MS, at the version its read saw',
  async (t) => {
    const large = await variedOrganization(svc, 'moving');
    const db = svc.service.deps.db;
    const snapshots = createGraphSnapshots({ db, clock: () => new Date() });
    t.true(
      await (
        await createOrgGraphCache({ db, clock: () => new Date(), snapshots, snapshotMinProviders: 0 })(large.id)
      ).snapshotStored,
    );
    let at = Date.now();
    const step = createGraphSnapshotBuildStep({ db, clock: () => new Date(at) });
    /** Builder steps 5 s apart, the graph moved before each: it never settles over a step. */
    const round = async (i: number) => {
      const built: string[] = [];
      for (let n = 0; ; n++) {
        await providerWithService(large.o, { externalId: `moving-${i}-${n}` });
        const org = await step();
        if (org === undefined) break;
        built.push(org);
        if (org === large.id) break;
      }
      at += 5_000;
      return built.includes(large.id);
    };
    for (let i = 0; i * 5_000 < MOVING_BUILD_MS; i++)
      t.false(await round(i), `moved since the previous step, due for ${i * 5} s: not yet`);
    t.true(await round(MOVING_BUILD_MS / 5_000), 'due for MOVING_BUILD_MS: built though it moved');
    const current = await readGraphVersion(db, large.id);
    t.deepEqual(
      (await snapshotRows(large.id)).map((r) => r.graph_version),
      [large.version, current],
      'stored as the version its read saw (the current one: nothing moved during the build)',
    );
    const g = await createOrgGraphCache({ db, clock: () => new Date(), snapshots, snapshotMinProviders: 0 })(large.id);
    t.is(g.source, 'snapshot');
    t.true(await sameAsRows(g, large.id));
  },
);

test.serial(
  'a moving graph is built sooner when enough ids were written since its latest snapshot, through the graph cache',
  async (t) => {
    const o = await variedOrganization(svc, 'many');
    const db = svc.service.deps.db;
    const snapshots = createGraphSnapshots({ db, clock: () => new Date() });
    const cache = createOrgGraphCache({ db, clock: () => new Date(), snapshots, snapshotMinProviders: 0 });
    t.true(await (await cache(o.id)).snapshotStored);
    // Every other due graph of the file built first, so that each step below looks at this one alone.
    const drain = createGraphSnapshotBuildStep({ db, clock: () => new Date() });
    await drain();
    while ((await drain()) !== undefined);
    // Each provider with its service and schedule: three ids written.
    const loaded: string[] = [];
    let at = Date.now();
    const step = createGraphSnapshotBuildStep({
      db,
      clock: () => new Date(at),
      movingBuildIds: 6,
      loadGraph: async (id) => (loaded.push(id), (await cache(id)).snapshotStored),
    });
    await providerWithService(o.o, { externalId: 'one' });
    t.is(await step(), undefined, 'three ids written since its snapshot, first seen: not yet');
    at += MOVING_BUILD_SOON_MS / 2;
    await providerWithService(o.o, { externalId: 'two' });
    t.is(
      await step(),
      undefined,
      'six ids written, moved since the previous step, due for less than MOVING_BUILD_SOON_MS',
    );
    at += MOVING_BUILD_SOON_MS / 2;
    await providerWithService(o.o, { externalId: 'three' });
    t.is(await step(), o.id, 'nine ids written, due for MOVING_BUILD_SOON_MS: built though it moved');
    t.deepEqual(
      (await snapshotRows(o.id)).map((r) => r.graph_version),
      [o.version, await readGraphVersion(db, o.id)],
    );
    t.deepEqual(loaded, [o.id], "through the process's graph cache");
    const held = await cache(o.id);
    t.is(held.source, 'changes', 'brought forward from the graph it held: warm for the next resolution');
    t.true(await sameAsRows(held, o.id));
  },
);

test.serial(
  'a process whose graph is too far behind to be brought forward makes the current one from a newer stored snapshot',
  async (t) => {
    const o = await variedOrganization(svc, 'behind');
    const db = svc.service.deps.db;
    const snapshots = createGraphSnapshots({ db, clock: () => new Date() });
    // At most two ids brought forward: the two providers added below (six ids) are too many, one edit is not.
    const cache = createOrgGraphCache({
      db,
      clock: () => new Date(),
      snapshots,
      snapshotMinProviders: Number.MAX_SAFE_INTEGER,
      maxChangedIds: () => 2,
    });
    t.is((await cache(o.id)).graphVersion, o.version, 'held at the first version');
    await providerWithService(o.o, { externalId: 'added-1' });
    await providerWithService(o.o, { externalId: 'added-2' });
    // Another process (the builder) stores the version after the additions.
    const stored = await readGraphColumns(db, o.id);
    await snapshots.write({ organizationId: o.id, graphVersion: stored.graphVersion }, stored.columns);
    t.true(stored.graphVersion > o.version);
    const edited = (await o.o.api.get('/api/v2/providers?limit=1')).body.data[0].id as string;
    await o.o.platform.patch(`/api/v2/providers/${edited}`, { displayName: 'Dr. Edited' });
    const g = await cache(o.id);
    t.is(g.source, 'changes', 'from the stored snapshot and the one edit, not from every row');
    const current = await readGraphColumns(db, o.id);
    t.is(g.graphVersion, current.graphVersion);
    t.true(g.columns!.buffer().equals(current.columns), 'the columns of every row read, byte for byte');
  },
);

test.serial(
  'a large graph that never had a snapshot gets its first from the builder once found, moving or not: loaded by the graph cache, or read here without one',
  async (t) => {
    const db = svc.service.deps.db;
    const snapshots = createGraphSnapshots({ db, clock: () => new Date() });
    const cache = createOrgGraphCache({ db, clock: () => new Date(), snapshots, snapshotMinProviders: 3 });
    const loaded: string[] = [];
    const loadGraph = async (id: string) => {
      loaded.push(id);
      return (await cache(id)).snapshotStored;
    };
    const steps = (clock: () => Date, withCache: boolean) => {
      const step = createGraphSnapshotBuildStep({
        db,
        clock,
        minProviders: 3,
        ...(withCache ? { loadGraph } : {}),
      });
      /** Steps until one builds nothing and the walk over the graphs never stored is over: what they built. */
      return async () => {
        const built: string[] = [];
        for (;;) {
          const org = await step();
          if (org !== undefined) built.push(org);
          else if (!step.walking()) return built;
        }
      };
    };
    // A builder whose walk over every graph never stored is over before the graphs below exist.
    const late = steps(() => new Date(Date.now() + 11 * 60_000), true);
    await late();
    // Three providers each: "large" against a minimum of 3; one with a single provider stays under it.
    const imported = await variedOrganization(svc, 'first');
    const alone = await variedOrganization(svc, 'first');
    const small = await newOrganization(svc, `first-small-${Date.now()}`);
    await providerWithService(small, { externalId: 'only' });
    const mine = (built: string[]) => built.filter((id) => [imported.id, alone.id, small.org.id].includes(id));

    // Ten minutes after their last moves, graphs that never had a snapshot are no longer looked at, but by the walk of
    // a builder that starts.
    t.deepEqual(
      mine(await late()),
      [],
      'moved more than ten minutes ago, after its walk: left to the resolving process',
    );
    const restarted = steps(() => new Date(Date.now() + 11 * 60_000), false);
    t.deepEqual(
      mine(await restarted()).sort(),
      [imported.id, alone.id].sort(),
      'found by the walk of a builder started since: built',
    );
    t.true(
      (await snapshotRows(imported.id)).length === 1 && (await snapshotRows(alone.id)).length === 1,
      'one snapshot each',
    );
    // Gone again, for the builder below to find them as moved within ten minutes.
    await db.query('DELETE FROM graph_snapshots WHERE organization_id = ANY($1)', [[imported.id, alone.id]]);

    const builder = steps(() => new Date(), true);
    t.deepEqual(mine(await builder()).sort(), [imported.id, alone.id].sort(), 'found: built at once');
    t.true(loaded.includes(imported.id), 'through the graph cache');
    t.is(
      (await cache(imported.id)).source,
      'rows',
      'the cache holds the graph it loaded: warm for the first resolution',
    );
    t.deepEqual(await snapshotRows(small.org.id), [], 'a graph under the minimum gets none');
    for (const o of [imported, alone]) {
      t.deepEqual(
        (await snapshotRows(o.id)).map((r) => r.graph_version),
        [o.version],
      );
      const g = await createOrgGraphCache({ db, clock: () => new Date(), snapshots })(o.id);
      t.is(g.source, 'snapshot', 'a new process reads the first snapshot');
      t.true(await sameAsRows(g, o.id));
    }
    t.deepEqual(mine(await builder()), [], 'stored: not built again');
    // Found too small at its version; counted again once it moved.
    await providerWithService(small, { externalId: 'second' });
    await providerWithService(small, { externalId: 'third' });
    t.deepEqual(mine(await builder()), [small.org.id], 'grown to the minimum: counted again at its new version, built');

    // Without the graph cache (a builder of its own), the rows are read here.
    const other = await variedOrganization(svc, 'first');
    const own = steps(() => new Date(), false);
    t.true((await own()).includes(other.id), 'found: built');
    t.false(loaded.includes(other.id));
    t.deepEqual(
      (await snapshotRows(other.id)).map((r) => r.graph_version),
      [other.version],
    );
  },
);

test.serial(
  "two processes' builders give a graph its first snapshot once: the second finds the lease taken and reads nothing",
  async (t) => {
    const db = svc.service.deps.db;
    const clock = () => new Date();
    const snapshots = createGraphSnapshots({ db, clock });
    /** A process's builder step with its own graph cache, whose loads wait for `gate`. */
    const processBuilder = (gate: Promise<void>) => {
      const cache = createOrgGraphCache({ db, clock, snapshots, snapshotMinProviders: 3 });
      const loaded: string[] = [];
      const step = createGraphSnapshotBuildStep({
        db,
        clock,
        minProviders: 3,
        loadGraph: async (id) => {
          loaded.push(id);
          await gate;
          return (await cache(id)).snapshotStored;
        },
      });
      return { step, loaded };
    };
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const a = processBuilder(gate);
    const b = processBuilder(gate);
    // Every other graph of the file built first (one per step), so that the next builds are this organization's.
    const drain = processBuilder(Promise.resolve());
    await drain.step();
    while ((await drain.step()) !== undefined);
    const o = await variedOrganization(svc, 'lease');
    const both = [a.step(), b.step()];
    const deadline = Date.now() + 10_000;
    while (a.loaded.length + b.loaded.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    // One holds the lease and waits at the gate; the other's step ends without reading anything.
    const loser = await Promise.race([
      ...both.map((p, i) => p.then(() => i)),
      new Promise<number>((r) => setTimeout(() => r(-1), 10_000)),
    ]);
    if (loser === -1) {
      open();
      await Promise.all(both);
      t.fail(`both processes loaded the graph (${[...a.loaded, ...b.loaded].join(', ')}): no lease`);
      return;
    }
    t.deepEqual([...a.loaded, ...b.loaded], [o.id], 'one process loads the graph');
    t.deepEqual((loser === 0 ? a : b).loaded, [], 'the other found the lease taken');
    open();
    const built = await Promise.all(both);
    t.deepEqual(built[loser], undefined);
    t.deepEqual(built[1 - loser], o.id);
    t.deepEqual(
      (await snapshotRows(o.id)).map((r) => r.graph_version),
      [o.version],
    );
    t.is(await (loser === 0 ? a : b).step(), undefined, 'stored: the other process has nothing left to build');
  },
);

test('two writers of one version: the second waits for the build lease and finds it stored (built once)', async (t) => {
  const { id, version } = await variedOrganization(svc, 'snap');
  const db = svc.service.deps.db;
  const clock = () => new Date();
  const reference = await loadOrgGraph(db, id, version, Date.now());
  const parts = (await readGraphColumns(db, id)).columns;
  // Two processes' stores (each its own), writing at once.
  const outcomes = await Promise.all([
    createGraphSnapshots({ db, clock }).write({ organizationId: id, graphVersion: version }, parts),
    createGraphSnapshots({ db, clock }).write({ organizationId: id, graphVersion: version }, parts),
  ]);
  t.deepEqual([...outcomes].sort(), ['present', 'written']);
  t.like(await snapshotRows(id), [{ graph_version: version, part: 0, parts: 1 }]);
  t.is(
    await createGraphSnapshots({ db, clock }).write({ organizationId: id, graphVersion: version }, parts),
    'present',
    'a later write of a stored version builds nothing',
  );
  const g = await createOrgGraphCache({ db, clock, snapshots: createGraphSnapshots({ db, clock }) })(id);
  t.is(g.source, 'snapshot');
  t.deepEqual(contentOf(g), contentOf(reference));
});
