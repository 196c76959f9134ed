import test from 'ava';
import { toDomainProvider, toDomainSchedule, toDomainService } from '../../src/application/resolution/org-graph.js';
import { loadOrgGraph, readGraphParts } from '../helpers/record-org-graph.js';
import { decodeGraphColumns } from '../../src/application/resolution/graph-columns.js';
import { readGraphColumns } from '../../src/application/resolution/read-graph-columns.js';
import { createDatabase } from '../../src/persistence/database.js';
import { readOrganizationGraphRows } from '../../src/persistence/organization-graph-rows.js';
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

test('the columns read straight from the rows decode to the full rows mapped: absent lists, JSON nulls, odd licence records and schedules', async (t) => {
  const { id: orgId, version } = await variedOrganization(svc, 'rowcols');
  const db = svc.service.deps.db;
  // Written without the API: a licence record the licence table cannot hold (a number, a key of its own), a provider
  // with no licence list at all, schedules with JSON nulls and without days or overrides.
  await db.query(
    `UPDATE providers SET doc = doc || '{"licenseRecords": [{"regionCode": "US-CA", "status": "active", "seats": 2}], "email": null}'::jsonb
     WHERE organization_id = $1 AND external_id = 'twin'`,
    [orgId],
  );
  await db.query(
    `UPDATE providers SET doc = doc - 'licenseRecords' - 'specialtyCodes' || '{"professionCode": null, "acceptsNewClients": null}'::jsonb
     WHERE organization_id = $1 AND external_id = 'bare'`,
    [orgId],
  );
  await db.query(
    `UPDATE calendar_connections SET doc = '{"timezone": null, "title": null, "days": null, "externalCalendar": null}'::jsonb
     WHERE id = (SELECT id FROM calendar_connections WHERE organization_id = $1 ORDER BY id LIMIT 1)`,
    [orgId],
  );
  await db.query(
    `UPDATE calendar_connections SET doc = doc || '{"title": "Évening 名前", "overrides": [{"date": "2031-03-04", "slots": []}]}'::jsonb
     WHERE id = (SELECT id FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC LIMIT 1)`,
    [orgId],
  );
  const key = { organizationId: orgId, graphVersion: version };
  const parts = decodeGraphColumns((await readGraphColumns(db, orgId)).columns, key);
  const providers = (await db.query('SELECT * FROM providers WHERE organization_id = $1 ORDER BY id', [orgId])).rows;
  const services = (await db.query('SELECT * FROM services WHERE organization_id = $1 ORDER BY id', [orgId])).rows;
  const schedules = (
    await db.query('SELECT * FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC', [orgId])
  ).rows;
  const mapped = providers.map((r) => toDomainProvider(toProviderView(r)));
  t.deepEqual(parts.providers, mapped);
  t.deepEqual(
    parts.providers.map((p) => Object.keys(p)),
    mapped.map((p) => Object.keys(p)),
  );
  t.deepEqual(parts.services, services.map(toDomainService));
  t.deepEqual(parts.schedules, schedules.map(toDomainSchedule));
  const records = await readGraphParts(db, orgId);
  t.deepEqual(
    [parts.providers, parts.services, parts.schedules],
    [records.providers, records.services, records.schedules],
    'the records the graph of records reads',
  );
  t.is(parts.services[0]!.providerId, parts.providers.find((p) => p.id === parts.services[0]!.providerId)!.id);
});

test('the three tables are read in one snapshot, on three connections: what commits while they are read is not seen', async (t) => {
  const { id: orgId } = await variedOrganization(svc, 'snapshot');
  const db = svc.service.deps.db;
  // Many providers read one a batch: the read of the providers outlasts the writes made while it runs.
  await db.query(
    `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
     SELECT id || 'x' || k, platform_id, organization_id, external_id || 'x' || k, status, searchable, doc, profile_version, created_at, updated_at
     FROM providers CROSS JOIN generate_series(1, 1000) AS k
     WHERE id = (SELECT min(id) FROM providers WHERE organization_id = $1)`,
    [orgId],
  );
  const before = {
    providers: Number(
      (await db.query('SELECT count(*) FROM providers WHERE organization_id = $1', [orgId])).rows[0].count,
    ),
    slugs: (await db.query('SELECT slug FROM services WHERE organization_id = $1 ORDER BY id', [orgId])).rows.map(
      (r) => r.slug as string,
    ),
    schedules: Number(
      (await db.query('SELECT count(*) FROM calendar_connections WHERE organization_id = $1', [orgId])).rows[0].count,
    ),
  };
  let written: Promise<unknown> | undefined;
  let committed = false;
  const read = { providers: 0, slugs: [] as string[], schedules: 0, committedBeforeServices: false };
  await readOrganizationGraphRows(db, orgId, 1, {
    providers(rows) {
      read.providers += rows.length;
      // Once the read has begun: every service renamed, every schedule deleted, a provider deleted, committed at once.
      written ??= db
        .transaction(async (tx) => {
          await tx.query(`UPDATE services SET slug = 'renamed' WHERE organization_id = $1`, [orgId]);
          await tx.query('DELETE FROM calendar_connections WHERE organization_id = $1', [orgId]);
          await tx.query(`DELETE FROM providers WHERE organization_id = $1 AND external_id LIKE '%x1000'`, [orgId]);
        })
        .then(() => (committed = true));
    },
    services(rows) {
      read.committedBeforeServices ||= committed;
      read.slugs.push(...rows.map((r) => r.slug));
    },
    schedules(rows) {
      read.schedules += rows.length;
    },
  });
  await written;
  t.true(read.committedBeforeServices, 'the writes committed before the services were handed over');
  t.deepEqual(
    { providers: read.providers, slugs: read.slugs, schedules: read.schedules },
    { providers: before.providers, slugs: before.slugs, schedules: before.schedules },
  );
  t.true(before.schedules > 0);
});

test('with no connection to spare the three tables are read one after another on one connection: the same columns', async (t) => {
  const { id: orgId } = await variedOrganization(svc, 'one-connection');
  const db = svc.service.deps.db;
  const version = Number(
    (await db.query('SELECT graph_version FROM organizations WHERE id = $1', [orgId])).rows[0].graph_version,
  );
  const key = { organizationId: orgId, graphVersion: version };
  const single = createDatabase(svc.stores.databaseUrl, { max: 1 });
  try {
    const columns = await readGraphColumns(single, orgId);
    t.is(single.pool.totalCount, 1, 'one connection was opened');
    t.deepEqual(columns, await readGraphColumns(db, orgId), 'the same bytes as read on three connections');
    t.is(columns.graphVersion, version);
  } finally {
    await single.close();
  }
});

test('a load outlasts the idle bound of a call transaction: each table waits idle while those before it are handed over', async (t) => {
  const { id: orgId } = await variedOrganization(svc, 'idle-bound');
  await svc.service.deps.db.query(
    `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
     SELECT id || 'x' || k, platform_id, organization_id, external_id || 'x' || k, status, searchable, doc, profile_version, created_at, updated_at
     FROM providers CROSS JOIN generate_series(1, 30) AS k
     WHERE id = (SELECT min(id) FROM providers WHERE organization_id = $1)`,
    [orgId],
  );
  // The service's bounds at one second: the services' and schedules' transactions, open from the start, wait idle
  // longer than that while some 30 providers are handed over one at a time to a sink that takes 100 ms each.
  const bounded = createDatabase(svc.stores.databaseUrl, {
    timeouts: { statementMs: 1000, lockMs: 1000, poolWaitMs: 3000, transactionMs: 0 },
  });
  try {
    const read = { providers: 0, services: 0, schedules: 0 };
    await readOrganizationGraphRows(bounded, orgId, 1, {
      providers(rows) {
        const until = Date.now() + 100;
        while (Date.now() < until); // Synchronous work on each batch, as the column writer's.
        read.providers += rows.length;
      },
      services: (rows) => void (read.services += rows.length),
      schedules: (rows) => void (read.schedules += rows.length),
    });
    const count = async (table: string) =>
      Number(
        (await svc.service.deps.db.query(`SELECT count(*) FROM ${table} WHERE organization_id = $1`, [orgId])).rows[0]
          .count,
      );
    t.true(read.providers > 30, `providers handed over one at a time: ${read.providers}`);
    t.is(read.providers, await count('providers'));
    t.true(read.services > 0 && read.schedules > 0);
    t.is(read.schedules, await count('calendar_connections'));
  } finally {
    await bounded.close();
  }
});
