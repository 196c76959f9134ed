import test from 'ava';
import type { OrgGraph } from '../../src/application/resolution/org-graph.js';
import { assembleOrgGraph, readGraphParts } from '../helpers/record-org-graph.js';
import { assembleColumnGraph } from '../../src/application/resolution/column-org-graph.js';
import { decodeGraphColumns, openGraphColumns } from '../../src/application/resolution/graph-columns.js';
import { readGraphColumns } from '../../src/application/resolution/read-graph-columns.js';
import { encodeGraphColumns } from '../../src/application/resolution/graph-columns-writer.js';
import { computeResolution } from '../../src/domain/resolution/compute-resolution.js';
import type { EligibilityRequest } from '../../src/domain/eligibility/eligibility-request.js';
import { DEFAULT_POLICY } from '../../src/domain/ranking/ranking-policy.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { providerWithService, variedOrganization, weekdays } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

/** Every combination of the given constraints (each absent or given), as requests. */
function requests(choices: Partial<Record<keyof EligibilityRequest, unknown[]>>): EligibilityRequest[] {
  let out: EligibilityRequest[] = [{}];
  for (const [field, values] of Object.entries(choices))
    out = out.flatMap((r) => [r, ...values!.map((v) => ({ ...r, [field]: v }))]);
  return out;
}

/** A resolution of `slug` on a graph, with no busy time and every feed unverifiable. */
function resolve(g: OrgGraph, slug: string, constraints: EligibilityRequest) {
  return computeResolution({
    index: g.eligibilityIndex,
    offering: g.offeringOf(slug),
    servicesOfSlug: g.servicesBySlug.get(slug) ?? new Map(),
    schedulesByProvider: g.schedulesByProvider,
    constraints,
    preferences: {},
    window: { from: '2031-03-03', to: '2031-03-10' },
    maxOptionsPerProvider: 3,
    policy: DEFAULT_POLICY,
    now: new Date('2031-03-01T12:00:00Z'),
    busyByProvider: new Map(),
    feedByProvider: new Map(),
    workloadByProvider: new Map(),
    continuityProviderIds: new Set(),
    allowUnverifiable: true,
  });
}

test('a graph indexed from its columns (encoded from records, or read straight from the rows) resolves every request as the graph of records does', async (t) => {
  const { o, id, version } = await variedOrganization(svc, 'cols');
  // More providers: licenses in several states and regions, other codes, one without a service of the slug.
  const more: Record<string, unknown>[] = [
    { professionCode: 'psychologist', languageCodes: ['fr'], serviceRegionCodes: ['CA-QC'], acceptsNewClients: true },
    {
      professionCode: 'counselor',
      specialtyCodes: ['trauma'],
      serviceRegionCodes: ['US'],
      licenseRecords: [
        { licenseTypeCode: 'counselor', regionCode: 'US-CA', status: 'expired', expiresAt: '2020-01-01' },
        { licenseTypeCode: 'counselor', regionCode: 'US-TX', status: 'active', expiresAt: '2031-03-05' },
      ],
      panelCapacity: 5,
      panelCurrentCount: 5,
    },
    {
      professionCode: 'psychologist',
      status: 'inactive',
      licenseRecords: [{ licenseTypeCode: 'psychologist', regionCode: 'US-CA', status: 'active' }],
    },
    { searchable: false, languageCodes: ['en'], ageGroupCodes: ['child', 'adult'], insurancePlanCodes: ['aetna'] },
    {
      // A licence region no request names, one expiring inside the window, and a panel with room.
      professionCode: 'psychologist',
      languageCodes: ['es', 'en'],
      licenseRecords: [
        { licenseTypeCode: 'psychologist', regionCode: 'ZZ-QQ', status: 'active' },
        { licenseTypeCode: 'psychologist', regionCode: 'US-NY', status: 'active', expiresAt: '2031-03-07' },
      ],
      panelCapacity: 3,
      panelCurrentCount: 1,
      acceptsNewClients: false,
    },
  ];
  for (const [i, p] of more.entries())
    await providerWithService(
      o,
      { externalId: `more-${i}`, ...p },
      { timezone: i % 2 ? 'Europe/Paris' : 'America/New_York', schedule: { days: weekdays('10:00', '15:00') } },
    );
  await providerWithService(o, { externalId: 'other-slug' }, { title: 'Group Session' });
  const db = svc.service.deps.db;
  const { graphVersion, columns: rowColumns } = await readGraphColumns(db, id);
  t.true(graphVersion > version, 'labelled with the version of the rows read (moved by the providers added)');
  const key = { organizationId: id, graphVersion };
  const records = assembleOrgGraph(id, key.graphVersion, await readGraphParts(db, id), 0);
  const origin = { source: 'snapshot' as const, snapshotStored: Promise.resolve(true) };
  const encoded = assembleColumnGraph(
    id,
    key.graphVersion,
    openGraphColumns(await encodeGraphColumns(key, await readGraphParts(db, id)), key),
    0,
    origin,
  );
  const decoded = decodeGraphColumns(rowColumns, key);
  const parts = await readGraphParts(db, id);
  t.deepEqual(
    [decoded.providers, decoded.services, decoded.schedules],
    [parts.providers, parts.services, parts.schedules],
    'the same records either way',
  );
  const fromRows = assembleColumnGraph(id, key.graphVersion, openGraphColumns(rowColumns, key), 0, origin);
  for (const [name, columns] of [
    ['encoded from records', encoded],
    ['read from rows', fromRows],
  ] as const) {
    t.is(columns.providerCount, records.providerCount);
    t.deepEqual([...columns.servicesBySlug.keys()], [...records.servicesBySlug.keys()]);
    let compared = 0;
    let options = 0;
    for (const slug of records.servicesBySlug.keys())
      for (const constraints of requests({
        professionCodes: [['psychologist'], ['counselor', 'psychologist']],
        languageCodes: [['es'], ['en', 'fr']],
        serviceRegionCodes: [['US'], ['US-CA', 'CA-QC']],
        licenseRegionCodes: [['US-CA'], ['US-TX', 'US-NY'], ['ZZ-QQ'], ['XX-YY']],
        acceptsNewClients: [true, false],
      })) {
        const expected = resolve(records, slug, constraints);
        t.deepEqual(resolve(columns, slug, constraints), expected, `${name}: ${slug} ${JSON.stringify(constraints)}`);
        compared++;
        options += expected.options.length;
      }
    t.true(compared >= 800 && options > 0, `${compared} requests, ${options} options`);
    for (let i = 0; i < records.providerCount; i++) {
      t.is(columns.providerIdAt(i), records.providerIdAt(i));
      t.is(columns.positionOf(records.providerIdAt(i)), i);
    }
    t.is(columns.positionOf('prv_none'), -1);
    t.deepEqual(columns.providers, records.providers);
    t.deepEqual([...columns.serviceById.keys()], [...records.serviceById.keys()]);
    t.deepEqual(new Map(columns.schedulesByProvider), new Map(records.schedulesByProvider));
    t.deepEqual(columns.feedSchedules, records.feedSchedules);
    for (const dimension of ['language', 'insurance', 'specialty', 'modality', 'license_region'])
      t.deepEqual(columns.servingOf(dimension, '2031-03-06'), records.servingOf(dimension, '2031-03-06'), dimension);
  }
});
