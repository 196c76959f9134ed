import test from 'ava';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let orgA: any;
let keyA: string;
let keyB: string;
let providerA: any;
let providerB: any;
let serviceA: any;
let serviceB: any;

/** A platform client acting inside an organization. */
const platformIn = (orgId: string) => client(svc.url, svc.platformKey, { 'service-organization-id': orgId });

/** Creates a provider through the API. */
async function newProvider(orgId: string, externalId: string, displayName = `Dr. ${externalId}`) {
  const r = await platformIn(orgId).post('/api/v2/providers', { externalId, displayName });
  if (r.status !== 200) throw new Error(`provider create failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Creates a service of a provider through the API. */
async function newService(orgId: string, providerId: string) {
  const r = await platformIn(orgId).post('/api/v2/services', { providerId, title: 'Intake', duration: 50 });
  if (r.status !== 200) throw new Error(`service create failed: ${JSON.stringify(r.body)}`);
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

const db = () => svc.service.deps.db;
const audits = async (id: string) =>
  (await db().query('SELECT action FROM audit_events WHERE resource_id = $1 ORDER BY seq', [id])).rows.map(
    (r) => r.action,
  );
const graphVersion = async (orgId: string) =>
  Number((await db().query('SELECT graph_version FROM organizations WHERE id = $1', [orgId])).rows[0].graph_version);

/** Inserts or reopens a manual-review entry as the resolution code does. */
async function upsertReview(orgId: string, platformId: string, providerId: string, at: Date, reasons: unknown[]) {
  await db().query(
    `INSERT INTO manual_review_entries (organization_id, provider_id, platform_id, reasons, status, first_seen_at, last_seen_at) VALUES ($1,$2,$3,$4,'open',$5,$5)
     ON CONFLICT (organization_id, provider_id) DO UPDATE SET reasons = EXCLUDED.reasons, last_seen_at = EXCLUDED.last_seen_at, status = 'open', resolved_at = NULL`,
    [orgId, providerId, platformId, JSON.stringify(reasons), at],
  );
}

// The clock never moves in this file, so every timestamp written equals svc.clock().
test.before(async () => {
  svc = await startTestService();
  ({ org: orgA, key: keyA } = await newOrg('care-a'));
  const b = await newOrg('care-b');
  keyB = b.key;
  providerA = await newProvider(orgA.id, 'care-prov-a');
  providerB = await newProvider(b.org.id, 'care-prov-b');
  serviceA = await newService(orgA.id, providerA.id);
  serviceB = await newService(b.org.id, providerB.id);
});
test.after.always(async () => {
  await svc?.stop();
});

test('continuity: create answers the record; a repeat upserts lastSeenAt on the same id; listed by clientRef', async (t) => {
  // An organization of its own: other tests of this file change orgA's graph version concurrently.
  const own = await newOrg('care-continuity');
  const provider = await newProvider(own.org.id, 'care-prov-c');
  const c = client(svc.url, own.key);
  const v0 = await graphVersion(own.org.id);
  const r = await c.post('/api/v2/continuity', {
    providerId: provider.id,
    clientRef: 'client-upsert',
    lastSeenAt: '2026-01-05T10:00:00Z',
  });
  t.is(r.status, 200);
  t.regex(r.body.id, /^cty_[0-9a-z]{26}$/);
  t.deepEqual(r.body, {
    id: r.body.id,
    providerId: provider.id,
    clientRef: 'client-upsert',
    lastSeenAt: '2026-01-05T10:00:00.000Z',
    createdAt: svc.clock().toISOString(),
  });
  t.true((await graphVersion(own.org.id)) > v0);

  const again = await c.post('/api/v2/continuity', {
    providerId: provider.id,
    clientRef: 'client-upsert',
    lastSeenAt: '2026-02-01T08:30:00+01:00',
  });
  t.deepEqual(again.body, { ...r.body, lastSeenAt: '2026-02-01T07:30:00.000Z' });
  const v1 = await graphVersion(own.org.id);
  // Without lastSeenAt an existing record keeps its value; nothing changed, so no new graph version and no audit.
  const same = await c.post('/api/v2/continuity', { providerId: provider.id, clientRef: 'client-upsert' });
  t.deepEqual(same.body, again.body);
  t.is(await graphVersion(own.org.id), v1);
  t.deepEqual(await audits(r.body.id), ['continuity.create', 'continuity.update']);

  const other = await c.post('/api/v2/continuity', { providerId: provider.id, clientRef: 'client-other' });
  t.is(other.body.lastSeenAt, null);
  const listed = await c.get('/api/v2/continuity?clientRef=client-upsert');
  t.deepEqual(listed.body, { data: [again.body], hasMore: false, nextCursor: null });
  t.deepEqual((await client(svc.url, keyB).get('/api/v2/continuity?clientRef=client-upsert')).body.data, []);
});

test('continuity validation and tenancy', async (t) => {
  const c = client(svc.url, keyA);
  const cases: [unknown, number, string, string?][] = [
    [{ providerId: providerA.id }, 400, 'VALIDATION_ERROR', 'clientRef'],
    [{ providerId: providerA.id, clientRef: '' }, 400, 'VALIDATION_ERROR', 'clientRef'],
    [{ providerId: providerA.id, clientRef: 'x'.repeat(201) }, 400, 'VALIDATION_ERROR', 'clientRef'],
    [{ providerId: providerA.id, clientRef: 'x', lastSeenAt: 'yesterday' }, 400, 'VALIDATION_ERROR', 'lastSeenAt'],
    [{ providerId: 'prv_unknown', clientRef: 'x' }, 404, 'PROVIDER_NOT_FOUND', 'providerId'],
    [{ providerId: providerB.id, clientRef: 'x' }, 403, 'FORBIDDEN', 'providerId'],
  ];
  for (const [body, status, code, field] of cases) {
    const r = await c.post('/api/v2/continuity', body);
    t.is(r.status, status, JSON.stringify(body));
    t.is(r.body.error.code, code);
    if (field) t.is(r.body.error.field, field);
  }
  t.deepEqual(
    (await c.post('/api/v2/continuity', { providerId: providerA.id, clientRef: 'x'.repeat(200) })).status,
    200,
  );
  const noRef = await c.get('/api/v2/continuity');
  t.is(noRef.status, 400);
  t.is(noRef.body.error.field, 'clientRef');
});

test('waitlist lifecycle: create waiting, list, cancel (twice answers the same), status filter', async (t) => {
  const { org, key } = await newOrg('care-wl');
  const provider = await newProvider(org.id, 'wl-prov');
  const service = await newService(org.id, provider.id);
  const c = client(svc.url, key);
  const body = {
    serviceId: service.id,
    customer: { name: 'Ana Pérez', email: 'ana@example.com' },
    constraints: { languageCodes: { anyOf: ['ES'] } },
    preferences: { dayParts: ['morning'] },
  };
  const r = await c.post('/api/v2/waitlist', body);
  t.is(r.status, 200);
  t.regex(r.body.id, /^wl_[0-9a-z]{26}$/);
  const at = svc.clock().toISOString();
  t.deepEqual(r.body, {
    id: r.body.id,
    status: 'waiting',
    serviceId: service.id,
    customer: body.customer,
    constraints: { languageCodes: { anyOf: ['es'] } },
    preferences: { dayParts: ['morning'] },
    resolutionId: null,
    offer: null,
    offersMade: 0,
    createdAt: at,
    updatedAt: at,
    cancelledAt: null,
  });
  const second = (
    await c.post('/api/v2/waitlist', { serviceId: service.id, customer: { name: 'Bo', email: 'bo@example.com' } })
  ).body;
  t.like(second, { constraints: null, preferences: null, status: 'waiting' });
  t.deepEqual((await c.get('/api/v2/waitlist')).body, { data: [r.body, second], hasMore: false, nextCursor: null });

  const cancelled = await c.delete(`/api/v2/waitlist/${r.body.id}`);
  t.is(cancelled.status, 200);
  t.deepEqual(cancelled.body, { ...r.body, status: 'cancelled', cancelledAt: at });
  t.deepEqual((await c.delete(`/api/v2/waitlist/${r.body.id}`)).body, cancelled.body);
  t.deepEqual(await audits(r.body.id), ['waitlist_entry.create', 'waitlist_entry.cancel']);
  t.deepEqual(
    (await c.get('/api/v2/waitlist?status=cancelled')).body.data.map((e: any) => e.id),
    [r.body.id],
  );
  t.deepEqual(
    (await c.get('/api/v2/waitlist?status=waiting')).body.data.map((e: any) => e.id),
    [second.id],
  );
  const page1 = await c.get('/api/v2/waitlist?limit=1');
  t.deepEqual(
    page1.body.data.map((e: any) => e.id),
    [r.body.id],
  );
  t.true(page1.body.hasMore);
  t.deepEqual(
    (await c.get(`/api/v2/waitlist?limit=1&cursor=${page1.body.nextCursor}`)).body.data.map((e: any) => e.id),
    [second.id],
  );
  t.is((await c.get('/api/v2/waitlist?status=done')).status, 400);
});

test('waitlist validation, unknown ids and tenancy', async (t) => {
  const c = client(svc.url, keyA);
  const customer = { name: 'C', email: 'c@example.com' };
  const cases: [unknown, number, string, string][] = [
    [{ customer }, 400, 'VALIDATION_ERROR', 'serviceId'],
    [
      { serviceId: serviceA.id, customer: { name: 'C', email: 'not-an-email' } },
      400,
      'VALIDATION_ERROR',
      'customer.email',
    ],
    [
      { serviceId: serviceA.id, customer: { name: 'n'.repeat(201), email: 'c@example.com' } },
      400,
      'VALIDATION_ERROR',
      'customer.name',
    ],
    [{ serviceId: serviceA.id }, 400, 'VALIDATION_ERROR', 'customer'],
    [{ serviceId: 'svc_unknown', customer }, 404, 'SERVICE_NOT_FOUND', 'serviceId'],
    [{ serviceId: serviceB.id, customer }, 403, 'FORBIDDEN', 'serviceId'],
    [{ serviceId: serviceA.id, customer, resolutionId: 'res_unknown' }, 404, 'RESOLUTION_NOT_FOUND', 'resolutionId'],
  ];
  for (const [body, status, code, field] of cases) {
    const r = await c.post('/api/v2/waitlist', body);
    t.is(r.status, status, JSON.stringify(body));
    t.is(r.body.error.code, code);
    t.is(r.body.error.field, field);
  }
  const mine = (await c.post('/api/v2/waitlist', { serviceId: serviceA.id, customer })).body;
  const foreign = await client(svc.url, keyB).delete(`/api/v2/waitlist/${mine.id}`);
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'FORBIDDEN');
  t.false((await client(svc.url, keyB).get('/api/v2/waitlist')).body.data.some((e: any) => e.id === mine.id));
  const missing = await c.delete('/api/v2/waitlist/wl_unknown');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'WAITLIST_ENTRY_NOT_FOUND');
  t.is(
    (await c.get(`/api/v2/waitlist?status=waiting`)).body.data.find((e: any) => e.id === mine.id)?.status,
    'waiting',
  );
});

test('manual review: list open entries with displayName, resolve, reopen when unknown again', async (t) => {
  const { org, key } = await newOrg('care-mr');
  const p1 = await newProvider(org.id, 'mr-1', 'Dr. Unknown License');
  const p2 = await newProvider(org.id, 'mr-2', 'Dr. Unknown Insurance');
  const c = client(svc.url, key);
  const seen = new Date('2026-01-10T12:00:00Z');
  const licenseReason = {
    code: 'LICENSE_MISSING',
    field: 'licenseRegionCodes',
    detail: 'required ["us-ca"]; provider data missing',
  };
  const insuranceReason = {
    code: 'INSURANCE_NOT_ACCEPTED',
    field: 'insurancePlanCodes',
    detail: 'required ["uhc"]; provider data missing',
  };
  await upsertReview(org.id, org.platformId, p1.id, seen, [licenseReason]);
  await upsertReview(org.id, org.platformId, p2.id, seen, [insuranceReason]);

  const list = await c.get('/api/v2/manual-review');
  t.is(list.status, 200);
  const sorted = [p1, p2].sort((a, b) => (a.id < b.id ? -1 : 1));
  t.deepEqual(
    list.body.data.map((e: any) => e.providerId),
    sorted.map((p) => p.id),
  );
  t.deepEqual(
    list.body.data.find((e: any) => e.providerId === p1.id),
    {
      providerId: p1.id,
      displayName: 'Dr. Unknown License',
      reasons: [licenseReason],
      firstSeenAt: seen.toISOString(),
      lastSeenAt: seen.toISOString(),
      status: 'open',
      resolvedAt: null,
    },
  );
  const page1 = await c.get('/api/v2/manual-review?limit=1');
  t.true(page1.body.hasMore);
  t.deepEqual(
    (await c.get(`/api/v2/manual-review?limit=1&cursor=${page1.body.nextCursor}`)).body.data.map(
      (e: any) => e.providerId,
    ),
    [sorted[1]!.id],
  );

  const resolved = await c.post(`/api/v2/manual-review/${p1.id}/resolve`);
  t.is(resolved.status, 200);
  t.like(resolved.body, {
    providerId: p1.id,
    status: 'resolved',
    resolvedAt: svc.clock().toISOString(),
    firstSeenAt: seen.toISOString(),
  });
  t.deepEqual(
    (await c.post(`/api/v2/manual-review/${p1.id}/resolve`)).body,
    resolved.body,
    'resolving again answers the same entry',
  );
  t.deepEqual(await audits(p1.id).then((a) => a.filter((x) => x.startsWith('manual_review'))), [
    'manual_review.resolve',
  ]);
  t.deepEqual(
    (await c.get('/api/v2/manual-review')).body.data.map((e: any) => e.providerId),
    [p2.id],
  );
  t.deepEqual(
    (await c.get('/api/v2/manual-review?status=resolved')).body.data.map((e: any) => e.providerId),
    [p1.id],
  );

  // A later resolution finds the provider unknown again: the entry reopens, first seen unchanged.
  const later = new Date('2026-01-11T12:00:00Z');
  await upsertReview(org.id, org.platformId, p1.id, later, [licenseReason]);
  const reopened = (await c.get('/api/v2/manual-review')).body.data.find((e: any) => e.providerId === p1.id);
  t.like(reopened, {
    status: 'open',
    resolvedAt: null,
    firstSeenAt: seen.toISOString(),
    lastSeenAt: later.toISOString(),
  });
  t.deepEqual((await c.get('/api/v2/manual-review?status=resolved')).body.data, []);
  t.is((await c.get('/api/v2/manual-review?status=closed')).status, 400);
});

test("manual review: 404 PROVIDER_NOT_FOUND without an entry or provider, 403 for another organization's provider", async (t) => {
  const c = client(svc.url, keyA);
  const noEntry = await c.post(`/api/v2/manual-review/${providerA.id}/resolve`);
  t.is(noEntry.status, 404);
  t.is(noEntry.body.error.code, 'PROVIDER_NOT_FOUND');
  const unknown = await c.post('/api/v2/manual-review/prv_unknown/resolve');
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'PROVIDER_NOT_FOUND');
  await upsertReview(
    (await db().query('SELECT organization_id FROM providers WHERE id = $1', [providerB.id])).rows[0].organization_id,
    orgA.platformId,
    providerB.id,
    new Date(),
    [{ code: 'LICENSE_MISSING', field: 'licenseRegionCodes', detail: 'x' }],
  );
  const foreign = await c.post(`/api/v2/manual-review/${providerB.id}/resolve`);
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'FORBIDDEN');
  t.false((await c.get('/api/v2/manual-review')).body.data.some((e: any) => e.providerId === providerB.id));
  t.true(
    (await client(svc.url, keyB).get('/api/v2/manual-review')).body.data.some(
      (e: any) => e.providerId === providerB.id,
    ),
  );
});
