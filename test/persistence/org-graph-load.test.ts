import test from 'ava';
import { randomUUID } from 'node:crypto';
import {
  loadOrgGraph,
  toDomainProvider,
  toDomainSchedule,
  toDomainService,
} from '../../src/application/resolution/org-graph.js';
import { toProviderView } from '../../src/persistence/provider-repository.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('the compact graph load gives the same providers, services and schedules as mapping the full rows', async (t) => {
  const o = await newOrganization(svc, `load-${randomUUID().slice(0, 8)}`);
  const orgId = o.org.id as string;
  await providerWithService(o, {
    externalId: 'full',
    email: 'full@example.org',
    professionCode: 'psychologist',
    specialtyCodes: ['anxiety', 'trauma'],
    languageCodes: ['en', 'es'],
    modalityCodes: ['virtual'],
    serviceRegionCodes: ['US-CA', 'US-NY'],
    insurancePlanCodes: ['aetna'],
    ageGroupCodes: ['adult'],
    licenseRecords: [
      { licenseTypeCode: 'psychologist', regionCode: 'US-CA', status: 'active', expiresAt: '2031-01-31' },
      {
        licenseTypeCode: 'psychologist',
        regionCode: 'US-NY',
        status: 'active',
        expiresAt: '2030-06-30',
        verifiedAt: '2026-01-02T03:04:05.000Z',
      },
    ],
    acceptsNewClients: true,
    timezone: 'America/Los_Angeles',
    panelCapacity: 30,
    panelCurrentCount: 12,
  });
  // Same lists as another provider (shared in the compact graph), and a second service and schedule of its own.
  const twin = await providerWithService(o, {
    externalId: 'twin',
    languageCodes: ['en', 'es'],
    modalityCodes: ['virtual'],
    acceptsNewClients: false,
  });
  await o.api.post('/api/v2/services', { providerId: twin.provider.id, title: 'Follow-up', duration: 30, price: 90 });
  await o.api.post('/api/v2/calendar-connections', {
    providerId: twin.provider.id,
    timezone: 'Europe/Paris',
    days: { monday: { enabled: true, slots: [{ start: '08:00', end: '12:00' }] } },
  });
  await providerWithService(o, { externalId: 'bare' }, { schedule: null });
  const db = svc.service.deps.db;
  // Rows written without the API: absent lists, JSON nulls and a bare doc read as the full mapping reads them.
  await db.query(
    `UPDATE providers SET doc = doc - 'languageCodes' || '{"insurancePlanCodes": null, "panelCapacity": null, "bio": null}'::jsonb
     WHERE organization_id = $1 AND external_id = 'bare'`,
    [orgId],
  );
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
