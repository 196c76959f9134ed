import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { collectedAfterGc } from '../helpers/collected-after-gc.js';

const clock = createTestClock('2026-03-02T12:00:00Z');
let svc: TestService;
test.before(async () => {
  // Every graph gets a stored snapshot, as a large organization's does (GRAPH_SNAPSHOT_MIN_PROVIDERS).
  svc = await startTestService({ clock, env: { GRAPH_SNAPSHOT_MIN_PROVIDERS: '0' } });
});
test.after.always(async () => {
  await svc?.stop();
});

test('a graph version a resolution was made on is let go once the graph moves on; its candidates are read back from the stored snapshot', async (t) => {
  const o = await newOrganization(svc, `released-${randomUUID().slice(0, 8)}`);
  const a = await providerWithService(o, { externalId: 'a', languageCodes: ['en'] });
  const resolve = () =>
    o.api.post(
      '/api/v2/resolutions',
      { serviceId: a.service.id, dateRange: { from: '2026-03-02', to: '2026-03-09' } },
      { 'idempotency-key': randomUUID() },
    );
  const first = await resolve();
  t.is(first.status, 200, JSON.stringify(first.body));
  // The graph the resolution was made on, as the service's graph cache holds it.
  const orgGraphs = svc.service.deps.orgGraphs;
  const old = new WeakRef(await orgGraphs(o.org.id));

  await providerWithService(o, { externalId: 'b', languageCodes: ['en'] });
  const second = await resolve();
  t.is(second.status, 200, JSON.stringify(second.body));
  t.is(second.body.summary.providersScanned, 2, 'the second resolution is made on the new version');
  t.not((await orgGraphs(o.org.id)).graphVersion, old.deref()?.graphVersion);

  // The resolution records' cache of snapshots for candidates kept every version a resolution used (twenty a process,
  // each a whole graph: ~150 MB at 100,000 providers) through a closure over the graph.
  t.true(await collectedAfterGc(old), 'nothing in the service holds the earlier version');
  const cands = await o.api.get(`/api/v2/resolutions/${first.body.resolutionId}/candidates`);
  t.is(cands.status, 200, JSON.stringify(cands.body));
  t.deepEqual(
    cands.body.candidates.map(
      (c: { provider?: { id: string }; providerId?: string }) => c.provider?.id ?? c.providerId,
    ),
    [a.provider.id],
    'the first resolution keeps its own graph version: one provider',
  );
});
