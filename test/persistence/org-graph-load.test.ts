import test from 'ava';
import {
  loadOrgGraph,
  toDomainProvider,
  toDomainSchedule,
  toDomainService,
} from '../../src/application/resolution/org-graph.js';
import { toProviderView } from '../../src/persistence/provider-repository.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { variedOrganization } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ env: { OUTBOUND_ALLOW_INSECURE_URLS: '1' } });
});
test.after.always(async () => {
  await svc?.stop();
});

test('the compact graph load gives the same providers, services and schedules as mapping the full rows', async (t) => {
  // Rows written without the API too (the bare provider): absent lists, JSON nulls and a bare doc read as the full
  // mapping reads them.
  const { id: orgId } = await variedOrganization(svc, 'load');
  const db = svc.service.deps.db;
  await db.query(
    `UPDATE calendar_connections SET doc = '{"timezone": "UTC"}'::jsonb
     WHERE id = (SELECT id FROM calendar_connections WHERE organization_id = $1 ORDER BY id LIMIT 1)`,
    [orgId],
  );

  const graph = await loadOrgGraph(db, orgId, 1, Date.now());
  const providers = (await db.query('SELECT * FROM providers WHERE organization_id = $1 ORDER BY id', [orgId])).rows;
  const services = (await db.query('SELECT * FROM services WHERE organization_id = $1 ORDER BY id', [orgId])).rows;
  const schedules = (
    await db.query('SELECT * FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC', [orgId])
  ).rows;
  t.is(graph.providers.length, 3);
  t.deepEqual(
    graph.providers,
    providers.map((r) => toDomainProvider(toProviderView(r))),
  );
  t.deepEqual(
    graph.providers.map((p) => Object.keys(p)),
    providers.map((r) => Object.keys(toDomainProvider(toProviderView(r)))),
    'the same keys in the same order (snapshots are their JSON)',
  );
  t.deepEqual(
    [...graph.serviceById.values()],
    services.map((r) => toDomainService(r)),
  );
  const expected = new Map<string, unknown[]>();
  for (const r of schedules) {
    const s = toDomainSchedule(r);
    expected.set(s.providerId, [...(expected.get(s.providerId) ?? []), s]);
  }
  t.deepEqual(new Map(graph.schedulesByProvider), expected);
  t.true(graph.approxBytes > 0);
  const [full, twinP] = graph.providers.filter((p) => p.externalId !== 'bare');
  t.is(full!.languageCodes, twinP!.languageCodes, 'equal code lists are one shared list');
});
