import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createOrgGraphCache } from '../../src/application/resolution/org-graph.js';
import { createGraphSnapshots } from '../../src/application/resolution/graph-snapshots.js';
import { warmOrgGraphs } from '../../src/application/resolution/warm-org-graphs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { organizationWith as newGraph } from '../helpers/graph-fixtures.js';

// Later than any other test file's clock: the resolutions other files leave are all older than the warm-up's hour.
const NOW = new Date('2031-01-01T00:00:00Z');
const clock = () => NOW;

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const organizationWith = (n: number) => newGraph(svc, n, 'warm');

/** Stores the snapshot of the organization's current graph version (as the builder does for a large graph). */
async function storeSnapshot(organizationId: string) {
  const db = svc.service.deps.db;
  const writer = createOrgGraphCache({
    db,
    clock,
    snapshots: createGraphSnapshots({ db, clock }),
    snapshotMinProviders: 0,
  });
  const g = await writer(organizationId);
  if (!(await g.snapshotStored)) throw new Error('snapshot not stored');
  return g.graphVersion;
}

/** Records a resolution of the organization made `minutesAgo` before NOW (the ledger row a resolution writes). */
async function resolvedAgo(organizationId: string, minutesAgo: number) {
  const at = new Date(NOW.getTime() - minutesAgo * 60_000);
  await svc.service.deps.db.query(
    `INSERT INTO resolutions (id, platform_id, organization_id, status, request_id, service_slug, policy_id,
       policy_version, graph_version, options_returned, evaluated_slots, providers_scanned, created_at, expires_at)
     SELECT $1, o.platform_id, o.id, 'completed', $2, 'intake', 'default', 1, o.graph_version, 0, 0, 0, $3, $4
     FROM organizations o WHERE o.id = $5`,
    [`res_${randomUUID()}`, `req_${randomUUID()}`, at, new Date(at.getTime() + 300_000), organizationId],
  );
}

/** A graph cache that would store a snapshot of any graph it makes from changes or rows (as for a large one). */
const newCache = () => {
  const db = svc.service.deps.db;
  return createOrgGraphCache({ db, clock, snapshots: createGraphSnapshots({ db, clock }), snapshotMinProviders: 0 });
};

test.serial(
  'a warm-up loads the graphs of organizations resolved in the last hour that have a stored snapshot, as their first resolution would',
  async (t) => {
    const db = svc.service.deps.db;
    const hot = await organizationWith(3);
    const hotVersion = await storeSnapshot(hot.id);
    await resolvedAgo(hot.id, 10);
    // Edited since its snapshot: made from that one and the changes.
    const moved = await organizationWith(2);
    await storeSnapshot(moved.id);
    await resolvedAgo(moved.id, 5);
    await moved.addProvider();
    // Resolved two hours ago; resolved but never given a snapshot (a small graph).
    const cold = await organizationWith(2);
    await storeSnapshot(cold.id);
    await resolvedAgo(cold.id, 120);
    const small = await organizationWith(1);
    await resolvedAgo(small.id, 1);

    const cache = newCache();
    const warmed = await warmOrgGraphs({ db, orgGraphs: cache, clock, maxBytes: 256 * 2 ** 20, budgetMs: 10_000 });
    t.deepEqual(
      warmed.organizations.filter((id) => [hot.id, moved.id, cold.id, small.id].includes(id)),
      [moved.id, hot.id],
      'the recently resolved graphs with a snapshot, the most recently resolved first',
    );
    t.false(warmed.outOfTime);
    t.true(warmed.bytes > 0);

    // Held in memory: with its snapshot gone, the first call still gets the graph read from it.
    await db.query('DELETE FROM graph_snapshots WHERE organization_id = $1', [hot.id]);
    const g = await cache(hot.id);
    t.is(g.source, 'snapshot');
    t.is(g.graphVersion, hotVersion);
    t.is(g.providers.length, 3);
    // Without the warm-up the same call reads the rows.
    t.is((await newCache()(hot.id)).source, 'rows');
    const m = await cache(moved.id);
    t.is(m.source, 'changes');
    t.is(m.providers.length, 3);
    // The warm-up stored nothing: the version it made is left to the snapshot builder.
    t.false(await m.snapshotStored);
    const stored = await db.query(
      `SELECT 1 FROM graph_snapshots s JOIN organizations o ON o.id = s.organization_id AND o.graph_version = s.graph_version
       WHERE o.id = $1`,
      [moved.id],
    );
    t.is(stored.rowCount, 0);
  },
);
test.serial(
  'a warm-up stops at half the cache budget and at its time budget; a budget of 0 loads nothing',
  async (t) => {
    const db = svc.service.deps.db;
    const a = await organizationWith(2);
    const b = await organizationWith(2);
    for (const o of [a, b]) {
      await storeSnapshot(o.id);
      await resolvedAgo(o.id, 2);
    }
    const bytesBound = await warmOrgGraphs({ db, orgGraphs: newCache(), clock, maxBytes: 2, budgetMs: 10_000 });
    t.is(bytesBound.organizations.length, 1, 'the first graph fills half of a 2-byte budget: no second one');

    const none = await warmOrgGraphs({ db, orgGraphs: newCache(), clock, maxBytes: 256 * 2 ** 20, budgetMs: 0 });
    t.deepEqual(none, { organizations: [], bytes: 0, outOfTime: false });

    // The listing and a snapshot read do not fit in 1 ms: the process serves without waiting for them.
    const rushed = await warmOrgGraphs({ db, orgGraphs: newCache(), clock, maxBytes: 256 * 2 ** 20, budgetMs: 1 });
    t.true(rushed.outOfTime);
    t.deepEqual(rushed.organizations, []);
  },
);

test.serial(
  'a service loads them before it serves, with its defaults; GRAPH_WARM_UP_SECONDS=0 turns that off',
  async (t) => {
    const db = svc.service.deps.db;
    const o = await organizationWith(2);
    const version = await storeSnapshot(o.id);
    await resolvedAgo(o.id, 1);
    const started = await Promise.all([
      startTestService({ stores: svc.stores, platformKey: svc.platformKey, clock: createTestClock(NOW) }),
      startTestService({
        stores: svc.stores,
        platformKey: svc.platformKey,
        clock: createTestClock(NOW),
        env: { GRAPH_WARM_UP_SECONDS: '0' },
      }),
    ]);
    try {
      // Once both are ready, the snapshot goes: only a graph loaded before serving is still the snapshot's.
      await db.query('DELETE FROM graph_snapshots WHERE organization_id = $1', [o.id]);
      const [warmed, cold] = await Promise.all(started.map((s) => s.service.deps.orgGraphs(o.id)));
      t.is(warmed!.source, 'snapshot');
      t.is(warmed!.graphVersion, version);
      t.is(cold!.source, 'rows');
    } finally {
      await Promise.all(started.map((s) => s.stop()));
    }
  },
);
