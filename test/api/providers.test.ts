import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { livePlatformKey } from '../helpers/live-platform-key.js';

let svc: TestService;
let orgA: any;
let orgB: any;
let keyA: string;
let keyB: string;
test.before(async () => {
  svc = await startTestService();
  const p = client(svc.url, svc.platformKey);
  orgA = (await p.post('/api/v2/organizations', { externalId: 'prov-a', name: 'Prov A' })).body;
  orgB = (await p.post('/api/v2/organizations', { externalId: 'prov-b', name: 'Prov B' })).body;
  keyA = (await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: orgA.id, name: 'a' })).body.key;
  keyB = (
    await client(svc.url, await livePlatformKey(svc)).post('/api/v2/api-keys', {
      type: 'organization_live',
      organizationId: orgB.id,
      name: 'b',
    })
  ).body.key;
});
test.after.always(async () => {
  await svc?.stop();
});

/** A platform client acting inside an organization. */
const platformIn = (orgId: string) => client(svc.url, svc.platformKey, { 'service-organization-id': orgId });

const base = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId,
  displayName: `Dr. ${externalId}`,
  ...extra,
});

test('create answers the provider with normalized codes, version 1, and stores professional.created', async (t) => {
  const r = await platformIn(orgA.id).post(
    '/api/v2/providers',
    base('norm-1', {
      languageCodes: ['ES', 'es-MX', 'en'],
      serviceRegionCodes: ['us-ca'],
      modalityCodes: ['in-person', 'virtual'],
      insurancePlanCodes: ['Blue Cross Blue Shield', 'cash', 'UnitedHealthcare', 'Acme Health Plan'],
      ageGroupCodes: ['Adult'],
      specialtyCodes: ['Anxiety Disorders'],
      professionCode: 'Clinical Psychologist',
      panelCapacity: 20,
      panelCurrentCount: 3,
      licenseRecords: [
        {
          licenseTypeCode: 'psy',
          regionCode: 'us-ny',
          status: 'active',
          expiresAt: '2030-01-01',
          verifiedAt: '2026-01-01T00:00:00Z',
        },
      ],
    }),
  );
  t.is(r.status, 200);
  t.like(r.body, {
    organizationId: orgA.id,
    externalId: 'norm-1',
    displayName: 'Dr. norm-1',
    status: 'active',
    searchable: true,
    profileVersion: 1,
    languageCodes: ['es', 'en'],
    serviceRegionCodes: ['US-CA'],
    modalityCodes: ['in_person', 'virtual'],
    ageGroupCodes: ['adult'],
    specialtyCodes: ['anxiety_disorders'],
    professionCode: 'clinical_psychologist',
    panelCapacity: 20,
    panelCurrentCount: 3,
  });
  t.deepEqual(r.body.insurancePlanCodes, ['bcbs', 'self_pay', 'uhc', 'acme_health_plan']);
  t.is(r.body.licenseRecords[0].regionCode, 'US-NY');
  const ev = await svc.service.deps.db.query(
    `SELECT * FROM events WHERE organization_id = $1 AND type = 'professional.created' AND data->>'providerId' = $2`,
    [orgA.id, r.body.id],
  );
  t.is(ev.rowCount, 1);
  t.deepEqual(ev.rows[0].data, { providerId: r.body.id, externalId: 'norm-1', profileVersion: 1 });
  t.is(ev.rows[0].mode, 'test');
});

test('creating a provider needs a platform key; duplicate externalId is 409', async (t) => {
  const denied = await client(svc.url, keyA).post('/api/v2/providers', base('nope'));
  t.is(denied.status, 403);
  t.is(denied.body.error.code, 'PLATFORM_KEY_REQUIRED');
  t.is((await platformIn(orgA.id).post('/api/v2/providers', base('dup-1'))).status, 200);
  const dup = await platformIn(orgA.id).post('/api/v2/providers', base('dup-1'));
  t.is(dup.status, 409);
  t.is(dup.body.error.code, 'DUPLICATE_EXTERNAL_ID');
  // The same externalId in another organization is fine.
  t.is((await platformIn(orgB.id).post('/api/v2/providers', base('dup-1'))).status, 200);
});

test('update bumps profileVersion and the graph version, emits professional.updated; delete deactivates', async (t) => {
  const org0 = (await client(svc.url, keyA).get(`/api/v2/organizations/${orgA.id}`)).body.providerGraphVersion;
  const p = (await platformIn(orgA.id).post('/api/v2/providers', base('upd-1', { languageCodes: ['en'] }))).body;
  const u = await client(svc.url, keyA).patch(`/api/v2/providers/${p.id}`, {
    languageCodes: ['fr'],
    acceptsNewClients: true,
  });
  t.is(u.status, 200);
  t.is(u.body.profileVersion, 2);
  t.deepEqual(u.body.languageCodes, ['fr']);
  t.true(u.body.acceptsNewClients);
  const same = await client(svc.url, keyA).patch(`/api/v2/providers/${p.id}`, { languageCodes: ['FR'] });
  t.is(same.body.profileVersion, 2, 'an update that changes nothing keeps the version');
  const org1 = (await client(svc.url, keyA).get(`/api/v2/organizations/${orgA.id}`)).body.providerGraphVersion;
  t.true(org1 >= org0 + 2);
  const ev = await svc.service.deps.db.query(
    `SELECT data FROM events WHERE type = 'professional.updated' AND data->>'providerId' = $1`,
    [p.id],
  );
  t.deepEqual(
    ev.rows.map((r) => r.data.profileVersion),
    [2],
  );
  const d = await client(svc.url, keyA).delete(`/api/v2/providers/${p.id}`);
  t.is(d.status, 200);
  t.like(d.body, { status: 'inactive', searchable: false, profileVersion: 3 });
  t.like((await client(svc.url, keyA).get(`/api/v2/providers/${p.id}`)).body, { status: 'inactive' });
});

test('list filters, total, and cursor pagination cover every provider once', async (t) => {
  const o = (
    await client(svc.url, svc.platformKey).post('/api/v2/organizations', { externalId: 'list-org', name: 'List' })
  ).body;
  const pc = platformIn(o.id);
  for (let i = 0; i < 7; i++) {
    await pc.post(
      '/api/v2/providers',
      base(`l-${i}`, {
        languageCodes: i % 2 ? ['es'] : ['en'],
        specialtyCodes: i < 3 ? ['trauma'] : ['anxiety'],
        modalityCodes: ['virtual'],
        professionCode: 'counselor',
        location: i === 0 ? 'Austin, TX' : 'Boston, MA',
        searchable: i !== 6,
      }),
    );
  }
  const all = await pc.get('/api/v2/providers');
  t.is(all.body.total, 7);
  t.is(all.body.data.length, 7);
  t.false(all.body.hasMore);
  t.is(all.body.nextCursor, null);
  t.is((await pc.get('/api/v2/providers?language=ES')).body.total, 3);
  t.is((await pc.get('/api/v2/providers?languageCodes=es')).body.total, 3);
  t.is((await pc.get('/api/v2/providers?specialty=trauma')).body.total, 3);
  t.is((await pc.get('/api/v2/providers?location=austin')).body.total, 1);
  t.is((await pc.get('/api/v2/providers?searchable=false')).body.total, 1);
  t.is((await pc.get('/api/v2/providers?externalId=l-3')).body.data[0].externalId, 'l-3');
  t.is((await pc.get('/api/v2/providers?modality=in-person')).body.total, 0);
  t.is((await pc.get('/api/v2/providers?profession=counselor&status=active')).body.total, 7);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const pageRes: any = await pc.get(`/api/v2/providers?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(pageRes.status, 200);
    seen.push(...pageRes.body.data.map((p: any) => p.externalId));
    cursor = pageRes.body.nextCursor;
  } while (cursor);
  t.deepEqual([...seen].sort(), ['l-0', 'l-1', 'l-2', 'l-3', 'l-4', 'l-5', 'l-6']);
});

test('tenancy: another organization’s provider is 403 FORBIDDEN for read, update and delete', async (t) => {
  const p = (await platformIn(orgA.id).post('/api/v2/providers', base('tenant-1'))).body;
  const b = client(svc.url, keyB);
  for (const r of [
    await b.get(`/api/v2/providers/${p.id}`),
    await b.patch(`/api/v2/providers/${p.id}`, { displayName: 'x' }),
    await b.delete(`/api/v2/providers/${p.id}`),
    await b.get(`/api/v1/professionals/${p.id}`),
  ]) {
    t.is(r.status, 403);
    t.is(r.body.error.code, 'FORBIDDEN');
  }
  t.false((await b.get('/api/v2/providers?limit=500')).body.data.some((x: any) => x.id === p.id));
  const still = (await client(svc.url, keyA).get(`/api/v2/providers/${p.id}`)).body;
  t.is(still.displayName, 'Dr. tenant-1');
  t.is((await b.get('/api/v2/providers/prv_unknown')).body.error.code, 'PROVIDER_NOT_FOUND');
});

test('v1 professionals show the same data under v1 names with v1 headers', async (t) => {
  const p = (
    await platformIn(orgA.id).post(
      '/api/v2/providers',
      base('v1-1', {
        languageCodes: ['en'],
        insurancePlanCodes: ['cigna'],
        professionCode: 'psychiatrist',
        specialtyCodes: ['adhd'],
        modalityCodes: ['virtual'],
      }),
    )
  ).body;
  const r = await client(svc.url, keyA).get(`/api/v1/professionals/${p.id}`);
  t.is(r.status, 200);
  t.like(r.body, {
    id: p.id,
    name: 'Dr. v1-1',
    profession: 'psychiatrist',
    specialty: ['adhd'],
    languages: ['en'],
    modality: ['virtual'],
    insurance: ['cigna'],
  });
  t.is(r.headers.get('deprecation'), 'false');
  t.regex(r.headers.get('link') ?? '', /\/api\/v2>; rel="successor-version"/);
  const list = await client(svc.url, keyA).get('/api/v1/professionals?externalId=v1-1');
  t.is(list.body.data[0].name, 'Dr. v1-1');
  const err = await client(svc.url, keyA).get('/api/v1/professionals/prv_missing');
  t.deepEqual(Object.keys(err.body.error).sort(), ['code', 'message', 'status']);
});

const bad: [string, Record<string, unknown>, string][] = [
  ['missing externalId', { displayName: 'x' }, 'externalId'],
  ['missing displayName', { externalId: 'bad-x' }, 'displayName'],
  ['displayName too long', { externalId: 'bad-x', displayName: 'é'.repeat(201) }, 'displayName'],
  ['bio too long', { externalId: 'bad-x', displayName: 'x', bio: 'b'.repeat(5001) }, 'bio'],
  ['unknown status', { externalId: 'bad-x', displayName: 'x', status: 'retired' }, 'status'],
  ['searchable not boolean', { externalId: 'bad-x', displayName: 'x', searchable: 'yes' }, 'searchable'],
  ['invalid language', { externalId: 'bad-x', displayName: 'x', languageCodes: ['en', 'english!'] }, 'languageCodes.1'],
  [
    'invalid region',
    { externalId: 'bad-x', displayName: 'x', serviceRegionCodes: ['California state'] },
    'serviceRegionCodes.0',
  ],
  ['invalid modality', { externalId: 'bad-x', displayName: 'x', modalityCodes: ['telepathy'] }, 'modalityCodes.0'],
  ['invalid age group', { externalId: 'bad-x', displayName: 'x', ageGroupCodes: ['toddler'] }, 'ageGroupCodes.0'],
  ['invalid code grammar', { externalId: 'bad-x', displayName: 'x', specialtyCodes: ['anx!ety'] }, 'specialtyCodes.0'],
  ['languageCodes not array', { externalId: 'bad-x', displayName: 'x', languageCodes: 'en' }, 'languageCodes'],
  [
    'too many items',
    { externalId: 'bad-x', displayName: 'x', specialtyCodes: Array.from({ length: 101 }, (_, i) => `s${i}`) },
    'specialtyCodes',
  ],
  [
    'license bad status',
    {
      externalId: 'bad-x',
      displayName: 'x',
      licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-CA', status: 'great' }],
    },
    'licenseRecords.0.status',
  ],
  [
    'license impossible date',
    {
      externalId: 'bad-x',
      displayName: 'x',
      licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-CA', status: 'active', expiresAt: '2026-02-30' }],
    },
    'licenseRecords.0.expiresAt',
  ],
  [
    'license bad verifiedAt',
    {
      externalId: 'bad-x',
      displayName: 'x',
      licenseRecords: [{ licenseTypeCode: 'psy', regionCode: 'US-CA', status: 'active', verifiedAt: 'yesterday' }],
    },
    'licenseRecords.0.verifiedAt',
  ],
  ['bad timezone', { externalId: 'bad-x', displayName: 'x', timezone: 'Europe/Nowhere' }, 'timezone'],
  ['negative panel capacity', { externalId: 'bad-x', displayName: 'x', panelCapacity: -1 }, 'panelCapacity'],
  ['fractional panel count', { externalId: 'bad-x', displayName: 'x', panelCurrentCount: 1.5 }, 'panelCurrentCount'],
  ['bad email', { externalId: 'bad-x', displayName: 'x', email: 'not-an-email' }, 'email'],
];
for (const [name, body, field] of bad) {
  test(`create provider rejects bad input: ${name}`, async (t) => {
    const r = await platformIn(orgA.id).post('/api/v2/providers', body);
    t.is(r.status, 400);
    t.is(r.body.error.code, 'VALIDATION_ERROR');
    t.is(r.body.error.field, field);
    t.is((await client(svc.url, keyA).get('/api/v2/providers?externalId=bad-x')).body.total, 0);
  });
}

test('update rejects bad input and changes nothing', async (t) => {
  const p = (await platformIn(orgA.id).post('/api/v2/providers', base('upd-bad', { languageCodes: ['en'] }))).body;
  for (const body of [
    { languageCodes: ['zz-top!'] },
    { status: 'gone' },
    { displayName: '' },
    { panelCapacity: 'ten' },
  ]) {
    const r = await client(svc.url, keyA).patch(`/api/v2/providers/${p.id}`, body);
    t.is(r.status, 400, JSON.stringify(body));
  }
  const after = (await client(svc.url, keyA).get(`/api/v2/providers/${p.id}`)).body;
  t.is(after.profileVersion, 1);
  t.deepEqual(after.languageCodes, ['en']);
  t.is((await client(svc.url, keyA).get('/api/v2/providers?limit=abc')).status, 400);
  t.is((await client(svc.url, keyA).get('/api/v2/providers?limit=501')).status, 400);
  t.is((await client(svc.url, keyA).get('/api/v2/providers?status=retired')).status, 400);
});
