import test from 'ava';
import { serviceSlug } from '../../src/domain/service-slug.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let orgA: any;
let orgB: any;
let keyA: string;
let keyB: string;
let providerA: any;
let providerB: any;
let serviceB: any;

/** A platform client acting inside an organization. */
const platformIn = (orgId: string) => client(svc.url, svc.platformKey, { 'service-organization-id': orgId });

/** Creates a provider through the API. */
async function newProvider(orgId: string, externalId: string) {
  const r = await platformIn(orgId).post('/api/v2/providers', { externalId, displayName: `Dr. ${externalId}` });
  if (r.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Makes a fresh organization with its own test key. */
async function newOrg(externalId: string) {
  const p = client(svc.url, svc.platformKey);
  const org = (await p.post('/api/v2/organizations', { externalId, name: externalId })).body;
  const key = (
    await p.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: externalId })
  ).body.key as string;
  return { org, key };
}

const graphVersion = async (orgId: string) =>
  (await platformIn(orgId).get(`/api/v2/organizations/${orgId}`)).body.providerGraphVersion as number;
const serviceCount = async (providerId: string) =>
  Number(
    (await svc.service.deps.db.query('SELECT count(*) AS n FROM services WHERE provider_id = $1', [providerId])).rows[0]
      .n,
  );

test.before(async () => {
  svc = await startTestService();
  ({ org: orgA, key: keyA } = await newOrg('svc-a'));
  ({ org: orgB, key: keyB } = await newOrg('svc-b'));
  providerA = await newProvider(orgA.id, 'svc-prov-a');
  providerB = await newProvider(orgB.id, 'svc-prov-b');
  serviceB = (
    await client(svc.url, keyB).post('/api/v2/services', {
      providerId: providerB.id,
      title: 'B Private Session',
      duration: 30,
    })
  ).body;
});
test.after.always(async () => {
  await svc?.stop();
});

test('create echoes every field plus id and slug, bumps the graph version once and writes one audit event', async (t) => {
  const { org, key } = await newOrg('svc-happy');
  const provider = await newProvider(org.id, 'happy-1');
  const v0 = await graphVersion(org.id);
  const body = {
    providerId: provider.id,
    title: 'Initial Consultation',
    duration: 50,
    price: 15000,
    currency: 'USD',
    modality: 'virtual',
    slotIntervalMinutes: 30,
    minimumNoticeMinutes: 120,
    bufferBeforeMinutes: 5,
    bufferAfterMinutes: 10,
  };
  const r = await client(svc.url, key).post('/api/v2/services', body);
  t.is(r.status, 200);
  t.regex(r.body.id, /^svc_[0-9a-z]{26}$/);
  t.like(r.body, { ...body, organizationId: org.id, slug: 'initial-consultation' });
  t.truthy(r.headers.get('x-service-request-id'));
  t.is(await graphVersion(org.id), v0 + 1);
  const audit = await svc.service.deps.db.query(
    'SELECT action, resource_type, after FROM audit_events WHERE resource_id = $1',
    [r.body.id],
  );
  t.is(audit.rowCount, 1);
  t.like(audit.rows[0], { action: 'service.create', resource_type: 'service' });
  t.is(audit.rows[0].after.slug, 'initial-consultation');
  // Read back by id and through the list.
  const got = await client(svc.url, key).get(`/api/v2/services/${r.body.id}`);
  t.deepEqual(got.body, r.body);
  const listed = await client(svc.url, key).get(`/api/v2/services?providerId=${provider.id}`);
  t.deepEqual(listed.body, { data: [r.body], total: 1, hasMore: false, nextCursor: null });
});

test('optional fields take their defaults; in_person and lower-case currency are normalized', async (t) => {
  const minimal = await client(svc.url, keyA).post('/api/v2/services', {
    providerId: providerA.id,
    title: 'Defaults Check',
    duration: 45,
  });
  t.is(minimal.status, 200);
  t.like(minimal.body, {
    price: null,
    currency: null,
    modality: null,
    slotIntervalMinutes: 45,
    minimumNoticeMinutes: 0,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
  });
  const normalized = await client(svc.url, keyA).post('/api/v2/services', {
    providerId: providerA.id,
    title: 'Normalize Check',
    duration: 60,
    modality: 'in_person',
    price: 0,
    currency: 'eur',
  });
  t.is(normalized.status, 200);
  t.like(normalized.body, { modality: 'in-person', currency: 'EUR', price: 0 });
});

const slugCases: [string, string][] = [
  ['Initial Consultation', 'initial-consultation'],
  ['  Therapy -- 50 min!! ', 'therapy-50-min'],
  ['Café Séance', 'cafe-seance'],
  ['ABC_def', 'abc-def'],
  ['Follow-up (45)', 'follow-up-45'],
  ['ＦＵＬＬ width', 'full-width'],
  ['already-a-slug', 'already-a-slug'],
  ['Ünïcödé 日本 Talk', 'unicode-talk'],
];

test('slug derivation from the title alone', async (t) => {
  const provider = await newProvider(orgA.id, 'slug-table');
  for (const [title, slug] of slugCases) {
    t.is(serviceSlug(title), slug, title);
    const r = await client(svc.url, keyA).post('/api/v2/services', { providerId: provider.id, title, duration: 30 });
    t.is(r.status, 200, title);
    t.is(r.body.slug, slug, title);
    t.is(r.body.title, title, 'the title is kept as sent');
  }
});

test('a slug is unique per provider (409 DUPLICATE_EXTERNAL_ID on title), not per organization', async (t) => {
  const p1 = await newProvider(orgA.id, 'dup-slug-1');
  const p2 = await newProvider(orgA.id, 'dup-slug-2');
  const first = await client(svc.url, keyA).post('/api/v2/services', {
    providerId: p1.id,
    title: 'Intake',
    duration: 30,
  });
  t.is(first.status, 200);
  const v0 = await graphVersion(orgA.id);
  const clash = await client(svc.url, keyA).post('/api/v2/services', {
    providerId: p1.id,
    title: 'INTAKE!',
    duration: 60,
  });
  t.is(clash.status, 409);
  t.like(clash.body.error, { code: 'DUPLICATE_EXTERNAL_ID', field: 'title' });
  t.is(await serviceCount(p1.id), 1);
  const other = await client(svc.url, keyA).post('/api/v2/services', {
    providerId: p2.id,
    title: 'Intake',
    duration: 30,
  });
  t.is(other.status, 200);
  t.is(other.body.slug, first.body.slug);
  const bySlug = await client(svc.url, keyA).get('/api/v2/services?slug=intake');
  t.deepEqual(bySlug.body.data.map((s: any) => s.providerId).sort(), [p1.id, p2.id].sort());
  t.true((await graphVersion(orgA.id)) >= v0 + 1);
});

const badBodies: [string, (providerId: string) => unknown, string][] = [
  ['missing providerId', () => ({ title: 'X', duration: 30 }), 'providerId'],
  ['providerId a number', () => ({ providerId: 42, title: 'X', duration: 30 }), 'providerId'],
  ['missing title', (p) => ({ providerId: p, duration: 30 }), 'title'],
  ['title null', (p) => ({ providerId: p, title: null, duration: 30 }), 'title'],
  ['blank title', (p) => ({ providerId: p, title: '   ', duration: 30 }), 'title'],
  ['title of punctuation only', (p) => ({ providerId: p, title: '!!! ???', duration: 30 }), 'title'],
  ['title over 200 characters', (p) => ({ providerId: p, title: 'a'.repeat(201), duration: 30 }), 'title'],
  ['huge title', (p) => ({ providerId: p, title: 'x'.repeat(100_000), duration: 30 }), 'title'],
  ['missing duration', (p) => ({ providerId: p, title: 'X' }), 'duration'],
  ['duration a string', (p) => ({ providerId: p, title: 'X', duration: '30' }), 'duration'],
  ['duration fractional', (p) => ({ providerId: p, title: 'X', duration: 30.5 }), 'duration'],
  ['duration below 5', (p) => ({ providerId: p, title: 'X', duration: 4 }), 'duration'],
  ['duration above 1440', (p) => ({ providerId: p, title: 'X', duration: 1441 }), 'duration'],
  ['negative price', (p) => ({ providerId: p, title: 'X', duration: 30, price: -1, currency: 'USD' }), 'price'],
  ['fractional price', (p) => ({ providerId: p, title: 'X', duration: 30, price: 9.99, currency: 'USD' }), 'price'],
  ['price without currency', (p) => ({ providerId: p, title: 'X', duration: 30, price: 100 }), 'currency'],
  ['currency of 4 letters', (p) => ({ providerId: p, title: 'X', duration: 30, currency: 'USDX' }), 'currency'],
  ['currency with digits', (p) => ({ providerId: p, title: 'X', duration: 30, currency: 'U5D' }), 'currency'],
  ['unknown modality', (p) => ({ providerId: p, title: 'X', duration: 30, modality: 'telepathy' }), 'modality'],
  ['modality as a list', (p) => ({ providerId: p, title: 'X', duration: 30, modality: ['virtual'] }), 'modality'],
  [
    'slot interval 0',
    (p) => ({ providerId: p, title: 'X', duration: 30, slotIntervalMinutes: 0 }),
    'slotIntervalMinutes',
  ],
  [
    'negative notice',
    (p) => ({ providerId: p, title: 'X', duration: 30, minimumNoticeMinutes: -5 }),
    'minimumNoticeMinutes',
  ],
  [
    'buffer a string',
    (p) => ({ providerId: p, title: 'X', duration: 30, bufferBeforeMinutes: '5' }),
    'bufferBeforeMinutes',
  ],
  [
    'buffer above a day',
    (p) => ({ providerId: p, title: 'X', duration: 30, bufferAfterMinutes: 1441 }),
    'bufferAfterMinutes',
  ],
  ['body an array', () => [], '(body)'],
];

test('bad create bodies are 400 VALIDATION_ERROR naming the field, and change nothing', async (t) => {
  const { org, key } = await newOrg('svc-bad');
  const provider = await newProvider(org.id, 'bad-1');
  const v0 = await graphVersion(org.id);
  for (const [name, body, field] of badBodies) {
    const r = await client(svc.url, key).post('/api/v2/services', body(provider.id));
    t.is(r.status, 400, name);
    t.is(r.body.error?.code, 'VALIDATION_ERROR', name);
    t.is(r.body.error?.field, field, name);
    t.true(Array.isArray(r.body.error?.details) && r.body.error.details.length > 0, name);
  }
  t.is(await serviceCount(provider.id), 0);
  t.is(await graphVersion(org.id), v0);
});

test('bad queries and unknown ids are 400 / 404', async (t) => {
  const c = client(svc.url, keyA);
  const cases: [string, number, string, string | undefined][] = [
    ['/api/v2/services?limit=abc', 400, 'VALIDATION_ERROR', 'limit'],
    ['/api/v2/services?limit=0', 400, 'VALIDATION_ERROR', 'limit'],
    ['/api/v2/services?limit=501', 400, 'VALIDATION_ERROR', 'limit'],
    ['/api/v2/services?cursor=%25%25%25', 400, 'VALIDATION_ERROR', 'cursor'],
    ['/api/v2/services?providerId=prv_unknown', 404, 'PROVIDER_NOT_FOUND', undefined],
    ['/api/v2/services/svc_unknown', 404, 'SERVICE_NOT_FOUND', undefined],
    ['/api/v1/event-types?providerId=prv_unknown', 404, 'PROVIDER_NOT_FOUND', undefined],
    ['/api/v1/event-types?limit=-1', 400, 'VALIDATION_ERROR', undefined],
    ['/api/v1/event-types?limit=abc', 400, 'VALIDATION_ERROR', undefined],
    ['/api/v1/event-types?limit=0', 400, 'VALIDATION_ERROR', undefined],
    ['/api/v1/event-types?limit=501', 400, 'VALIDATION_ERROR', undefined],
    ['/api/v1/event-types?cursor=%25%25%25', 400, 'VALIDATION_ERROR', undefined],
  ];
  for (const [path, status, code, field] of cases) {
    const r = await c.get(path);
    t.is(r.status, status, path);
    t.is(r.body.error?.code, code, path);
    if (field !== undefined) t.is(r.body.error.field, field, path);
  }
  const unknownProvider = await c.post('/api/v2/services', { providerId: 'prv_unknown', title: 'Ghost', duration: 30 });
  t.is(unknownProvider.status, 404);
  t.is(unknownProvider.body.error.code, 'PROVIDER_NOT_FOUND');
});

test('tenancy: another organization’s provider and service are 403 FORBIDDEN and nothing changes', async (t) => {
  const a = client(svc.url, keyA);
  const vB = await graphVersion(orgB.id);
  const create = await a.post('/api/v2/services', { providerId: providerB.id, title: 'Sneaky', duration: 30 });
  t.is(create.status, 403);
  t.is(create.body.error.code, 'FORBIDDEN');
  t.is(await serviceCount(providerB.id), 1);
  for (const path of [
    `/api/v2/services/${serviceB.id}`,
    `/api/v2/services?providerId=${providerB.id}`,
    `/api/v1/event-types?providerId=${providerB.id}`,
  ]) {
    const r = await a.get(path);
    t.is(r.status, 403, path);
    t.is(r.body.error.code, 'FORBIDDEN', path);
  }
  // The organization's own list never shows another organization's services.
  const own = await a.get('/api/v2/services?slug=b-private-session');
  t.deepEqual(own.body.data, []);
  // The platform key in its default organization is another tenant too.
  t.is((await client(svc.url, svc.platformKey).get(`/api/v2/services/${serviceB.id}`)).status, 403);
  t.is((await platformIn(orgB.id).get(`/api/v2/services/${serviceB.id}`)).status, 200);
  t.is(await graphVersion(orgB.id), vB);
});

test('list pagination covers every service once; total counts all pages', async (t) => {
  const provider = await newProvider(orgA.id, 'page-1');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (
        await client(svc.url, keyA).post('/api/v2/services', {
          providerId: provider.id,
          title: `Page ${i}`,
          duration: 30,
        })
      ).body.id,
    );
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: any = await client(svc.url, keyA).get(
      `/api/v2/services?providerId=${provider.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    t.is(r.status, 200);
    t.is(r.body.total, 5);
    seen.push(...r.body.data.map((s: any) => s.id));
    t.is(r.body.hasMore, r.body.nextCursor !== null);
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  t.is(pages, 3);
  // Ids made in the same millisecond (the test clock stands still) sort by their random part, so compare as sets.
  t.deepEqual(seen, [...ids].sort());
});

test('v1 event-types pages with limit and cursor through every event type once', async (t) => {
  const provider = await newProvider(orgA.id, 'v1-et-pages');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (
        await client(svc.url, keyA).post('/api/v2/services', {
          providerId: provider.id,
          title: `Kind ${i}`,
          duration: 20 + i,
        })
      ).body.id,
    );
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: any = await client(svc.url, keyA).get(
      `/api/v1/event-types?providerId=${provider.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    t.is(r.status, 200);
    t.deepEqual(Object.keys(r.body).sort(), ['data', 'hasMore', 'nextCursor', 'total']);
    t.is(r.body.total, 5);
    t.true(r.body.data.length <= 2);
    for (const e of r.body.data)
      t.deepEqual(Object.keys(e).sort(), [
        'currency',
        'id',
        'length',
        'modality',
        'price',
        'providerId',
        'slug',
        'title',
      ]);
    seen.push(...r.body.data.map((e: any) => e.id));
    t.is(r.body.hasMore, r.body.nextCursor !== null);
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  t.is(pages, 3);
  t.deepEqual(seen, [...ids].sort());
});

test('v1 event-types shows services under v1 names with Deprecation and Link headers; v1 errors use the short envelope', async (t) => {
  const provider = await newProvider(orgA.id, 'v1-et');
  const s = (
    await client(svc.url, keyA).post('/api/v2/services', {
      providerId: provider.id,
      title: 'Quick Check-in',
      duration: 15,
      price: 2500,
      currency: 'USD',
      modality: 'both',
    })
  ).body;
  const r = await client(svc.url, keyA).get(`/api/v1/event-types?providerId=${provider.id}`);
  t.is(r.status, 200);
  t.is(r.headers.get('deprecation'), 'false');
  t.deepEqual(r.body, {
    data: [
      {
        id: s.id,
        providerId: provider.id,
        slug: 'quick-check-in',
        title: 'Quick Check-in',
        length: 15,
        price: 2500,
        currency: 'USD',
        modality: 'both',
      },
    ],
    total: 1,
    hasMore: false,
    nextCursor: null,
  });
  const err = await client(svc.url, keyA).get(`/api/v1/event-types?providerId=${providerB.id}`);
  t.is(err.status, 403);
  t.deepEqual(Object.keys(err.body.error).sort(), ['code', 'message', 'status']);
  t.is(err.headers.get('deprecation'), 'false');
  // CONTRACT part 5: `Link: <{base}/api/v2>; rel="successor-version"`.
  t.regex(r.headers.get('link') ?? '', /^<https?:\/\/[^\s<>]+\/api\/v2>; rel="successor-version"$/);
});
