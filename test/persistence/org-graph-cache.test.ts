import test from 'ava';
import { createOrgGraphCache } from '../../src/application/resolution/org-graph.js';
import { runInCallScope } from '../../src/persistence/call-scope.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { organizationWith as newGraph } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const organizationWith = (n: number) => newGraph(svc, n, 'graph');

test('the graph cache holds at most maxProviders providers, dropping the least recently used graph first', async (t) => {
  const [a, b, c] = [await organizationWith(3), await organizationWith(2), await organizationWith(2)];
  const db = svc.service.deps.db;
  const cache = createOrgGraphCache({ db, clock: () => new Date(), maxProviders: 5 });
  const a1 = await cache(a.id);
  const b1 = await cache(b.id);
  t.is(a1.providers.length, 3);
  t.is(await cache(a.id), a1, 'a graph read again within the budget is the cached one');
  t.is(await cache(b.id), b1);
  t.is(await cache(a.id), a1, 'a is now the most recently used');

  const c1 = await cache(c.id);
  t.is(c1.providers.length, 2);
  t.is(await cache(a.id), a1, 'a (recently used) stays');
  t.is(await cache(c.id), c1, 'the graph just loaded stays');
  const b2 = await cache(b.id);
  t.not(b2, b1, 'b (least recently used) was dropped to stay within 5 providers, so it is loaded again');
  t.deepEqual(
    b2.providers.map((p) => p.id),
    b1.providers.map((p) => p.id),
  );
});

test('one graph larger than the budget is still served, and a new graph version reloads it once', async (t) => {
  const big = await organizationWith(3);
  const db = svc.service.deps.db;
  const cache = createOrgGraphCache({ db, clock: () => new Date(), maxProviders: 2 });
  const g1 = await cache(big.id);
  t.is(g1.providers.length, 3);
  t.is(await cache(big.id), g1, 'the only graph is kept even above the budget');
  await big.addProvider();
  const version = Number(
    (await db.query('SELECT graph_version FROM organizations WHERE id = $1', [big.id])).rows[0].graph_version,
  );
  // Both readers find the stale graph before either starts the new load (the version is known: no query between).
  const [g2, twin] = await Promise.all([cache(big.id, version), cache(big.id, version)]);
  t.true(g2.graphVersion > g1.graphVersion);
  t.is(g2.providers.length, 4);
  t.is(twin, g2, 'concurrent readers of a new version share one load');
});

test('a load started by a call that runs out of time goes on, and the next caller gets it', async (t) => {
  const o = await organizationWith(3);
  const db = svc.service.deps.db;
  const cache = createOrgGraphCache({ db, clock: () => new Date(), maxProviders: 100 });
  const version = Number(
    (await db.query('SELECT graph_version FROM organizations WHERE id = $1', [o.id])).rows[0].graph_version,
  );
  // A call already past its deadline (the gateway answered 503 while its graph loads): its own statements are refused.
  const late = { deadline: Date.now() - 1, signal: new AbortController().signal };
  const first = runInCallScope(late, () => cache(o.id, version));
  const g = await first;
  t.is(g.providers.length, 3, 'the load is not cut off by the deadline of the call that started it');
  t.is(await cache(o.id, version), g, 'a retry finds the graph loaded, not a new load from the rows');
});
