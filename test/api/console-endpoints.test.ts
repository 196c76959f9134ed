import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { client } from '../helpers/http.js';

let svc: TestService;
// Monday 2 March 2026, 07:00 in New York.
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

type Org = Awaited<ReturnType<typeof newOrganization>>;
const idem = () => ({ 'idempotency-key': randomUUID() });
const uniq = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
const platform = () => client(svc.url, svc.platformKey);
const db = () => svc.service.deps.db;

/** An organization with one provider offering a service on weekdays. */
async function orgWithProvider(name: string) {
  const o = await newOrganization(svc, uniq(name));
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  return { o, p };
}

/** Makes one resolution and answers its id. */
async function resolve(o: Org, serviceId: string): Promise<string> {
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 1 },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.resolutionId;
}

const keyIdOf = async (orgId: string) =>
  (await db().query('SELECT id FROM api_keys WHERE organization_id = $1', [orgId])).rows[0].id as string;

test('GET /api/v2/caller: platform key with and without Service-Organization-Id, organization key, and refusals', async (t) => {
  const o = await newOrganization(svc, uniq('caller'));
  const platformRow = (
    await db().query(
      `SELECT k.id, k.platform_id, p.default_organization_id FROM api_keys k JOIN platforms p ON p.id = k.platform_id WHERE k.type LIKE 'platform_%' ORDER BY k.created_at LIMIT 1`,
    )
  ).rows[0];

  const bare = await platform().get('/api/v2/caller');
  t.is(bare.status, 200, JSON.stringify(bare.body));
  t.deepEqual(bare.body, {
    keyId: platformRow.id,
    keyType: 'platform_test',
    mode: 'test',
    platformId: platformRow.platform_id,
    organizationId: null,
    defaultOrganizationId: platformRow.default_organization_id,
    organization: null,
  });
  t.truthy(bare.headers.get('ratelimit-limit'));

  const inOrg = await o.platform.get('/api/v2/caller');
  t.is(inOrg.status, 200);
  t.like(inOrg.body, {
    keyId: platformRow.id,
    keyType: 'platform_test',
    organizationId: o.org.id,
    defaultOrganizationId: platformRow.default_organization_id,
  });
  t.deepEqual(inOrg.body.organization, {
    id: o.org.id,
    name: o.org.name,
    externalId: o.org.externalId,
    settings: o.org.settings,
    providerGraphVersion: 0,
  });

  const orgKey = await o.api.get('/api/v2/caller');
  t.is(orgKey.status, 200);
  t.deepEqual(orgKey.body, {
    keyId: await keyIdOf(o.org.id),
    keyType: 'organization_live',
    mode: 'live',
    platformId: o.org.platformId,
    organizationId: o.org.id,
    defaultOrganizationId: null,
    organization: inOrg.body.organization,
  });

  // The usual refusals: no key, an organization key with the header, an organization of no platform of this key.
  t.is((await client(svc.url).get('/api/v2/caller')).status, 401);
  t.is((await o.api.get('/api/v2/caller', { 'service-organization-id': o.org.id })).body.error.code, 'UNAUTHENTICATED');
  const foreign = await platform().get('/api/v2/caller', { 'service-organization-id': 'org_nope' });
  t.is(foreign.status, 403);
  t.is(foreign.body.error.code, 'FORBIDDEN');
});

test('GET /api/v2/organizations/:id/overview: counts follow what the organization holds; same access as the organization', async (t) => {
  const o = await newOrganization(svc, uniq('overview'));
  const empty = await o.api.get(`/api/v2/organizations/${o.org.id}/overview`);
  t.is(empty.status, 200, JSON.stringify(empty.body));
  t.like(empty.body, {
    organization: { id: o.org.id, name: o.org.name, providerGraphVersion: 0, settings: { plan: 'free' } },
    generatedAt: clock().toISOString(),
  });
  t.like(empty.body.counts, {
    providers: { active: 0, total: 0 },
    services: 0,
    resolutionsLast24h: 0,
    activeHolds: 0,
    manualReviewOpen: 0,
    bookings: { pending: 0, confirmed: 0, cancelled: 0, completed: 0, rescheduled: 0 },
    webhookDeliveries: { pending: 0, delivered: 0, failed: 0, dead_lettered: 0, suppressed: 0 },
  });

  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  await o.platform.post('/api/v2/providers', { externalId: 'p2', displayName: 'Dr. Two', status: 'inactive' });
  const res = (
    await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 2 },
      idem(),
    )
  ).body;
  await resolve(o, p.service.id);
  const [a] = res.options;
  const hold = (
    await o.api.post(`/api/v2/resolutions/${res.resolutionId}/options/${a.optionId}/hold`, { ttlSeconds: 120 })
  ).body;
  t.truthy(hold.holdId, JSON.stringify(hold));
  const slot = (
    await o.api.get(`/api/v1/slots?providerId=${p.provider.id}&eventTypeId=${p.service.id}&date=2026-03-04`)
  ).body.slots.find((s: any) => s.available);
  const v1 = (
    await o.api.post('/api/v1/bookings', {
      providerId: p.provider.id,
      serviceId: p.service.id,
      slotId: slot.id,
      attendee: { name: 'Pat', email: 'pat@example.com', timezone: 'America/New_York' },
    })
  ).body;
  t.truthy(v1.data?.id, JSON.stringify(v1));

  const after = (await o.platform.get(`/api/v2/organizations/${o.org.id}/overview`)).body;
  const graph = (await o.api.get(`/api/v2/organizations/${o.org.id}`)).body.providerGraphVersion;
  t.is(after.organization.providerGraphVersion, graph);
  t.true(graph > 0);
  t.like(after.counts, {
    providers: { active: 1, total: 2 },
    services: 1,
    resolutionsLast24h: 2,
    activeHolds: 1,
    bookings: { pending: 1, confirmed: 0, cancelled: 0, completed: 0, rescheduled: 0 },
  });
  // Audit events of this organization only, as the audit log lists them.
  await svc.service.audit.flush();
  const audit = (await db().query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [o.org.id]))
    .rows[0].n;
  t.is((await o.api.get(`/api/v2/organizations/${o.org.id}/overview`)).body.counts.auditEvents, audit);
  t.true(audit > 0);

  // A platform key reads any organization of its platform without the header; another organization's key may not.
  t.is((await platform().get(`/api/v2/organizations/${o.org.id}/overview`)).status, 200);
  const other = await newOrganization(svc, uniq('overview-other'));
  const forbidden = await other.api.get(`/api/v2/organizations/${o.org.id}/overview`);
  t.is(forbidden.status, 403);
  t.is(forbidden.body.error.code, 'FORBIDDEN');
  const missing = await platform().get('/api/v2/organizations/org_missing/overview');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'ORGANIZATION_NOT_FOUND');
});

test.serial("GET /api/v2/resolutions: newest first, paged by cursor, only the caller's organization", async (t) => {
  const { o, p } = await orgWithProvider('list');
  const { o: other, p: otherP } = await orgWithProvider('list-other');
  const foreignId = await resolve(other, otherP.service.id);
  const start = clock().toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(await resolve(o, p.service.id));
    clock.advance(1000);
  }
  // Two more in the same millisecond: the id breaks the tie, and paging still lists each once.
  ids.push(await resolve(o, p.service.id), await resolve(o, p.service.id));
  clock.advance(1000);

  const first = await o.api.get('/api/v2/resolutions?limit=2');
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(first.body.data.length, 2);
  t.true(first.body.hasMore);
  const seen = [...first.body.data];
  let cursor = first.body.nextCursor as string | null;
  while (cursor) {
    const next = await o.api.get(`/api/v2/resolutions?limit=2&cursor=${encodeURIComponent(cursor)}`);
    t.is(next.status, 200, JSON.stringify(next.body));
    seen.push(...next.body.data);
    cursor = next.body.nextCursor;
    if (!next.body.hasMore) t.is(cursor, null);
  }
  t.deepEqual(seen.map((r) => r.id).sort(), [...ids].sort());
  t.false(seen.some((r) => r.id === foreignId));
  const times = seen.map((r) => Date.parse(r.createdAt));
  t.deepEqual(
    times,
    [...times].sort((x, y) => y - x),
    'newest first',
  );
  t.deepEqual(
    seen.slice(-3).map((r) => r.id),
    [ids[2], ids[1], ids[0]],
  );

  // The row as the ledger keeps it: the booking appears once the resolution is confirmed.
  const row = seen.find((r) => r.id === ids[0])!;
  t.deepEqual(
    Object.keys(row).sort(),
    [
      'bookingId',
      'createdAt',
      'evaluatedSlots',
      'expiresAt',
      'graphVersion',
      'id',
      'optionsReturned',
      'policyId',
      'policyVersion',
      'providersScanned',
      'requestId',
      'serviceSlug',
      'status',
    ].sort(),
  );
  t.like(row, { status: 'resolved', bookingId: null, serviceSlug: 'intake-session', createdAt: start });
  t.true(row.optionsReturned >= 1 && row.providersScanned >= 1 && row.evaluatedSlots >= 1);
  t.is(Date.parse(row.expiresAt) - Date.parse(row.createdAt), 300_000);

  // The other organization sees only its own; a platform key with the header sees the named organization's.
  t.deepEqual(
    (await other.api.get('/api/v2/resolutions')).body.data.map((r: any) => r.id),
    [foreignId],
  );
  t.is((await o.platform.get('/api/v2/resolutions?limit=100')).body.data.length, 5);
  const defaultList = await o.api.get('/api/v2/resolutions');
  t.is(defaultList.body.data.length, 5, 'default limit 20 holds them all');
  t.false(defaultList.body.hasMore);

  for (const q of [
    'limit=0',
    'limit=101',
    'limit=abc',
    'cursor=bm9wZQ',
    `cursor=${Buffer.from('x|y').toString('base64url')}`,
  ]) {
    const bad = await o.api.get(`/api/v2/resolutions?${q}`);
    t.is(bad.status, 400, q);
    t.is(bad.body.error.code, 'VALIDATION_ERROR', q);
  }
});

test.serial(
  'GET /api/v2/audit-events/verification: intact, then broken after an event is edited in SQL; bounded by limit',
  async (t) => {
    const o = await newOrganization(svc, uniq('verify'));
    await o.platform.patch(`/api/v2/organizations/${o.org.id}`, { name: 'Renamed once' });
    await o.platform.patch(`/api/v2/organizations/${o.org.id}`, { name: 'Renamed twice' });
    await svc.service.audit.flush();
    const links = (
      await db().query('SELECT event_id, position FROM audit_chain WHERE organization_id = $1 ORDER BY position', [
        o.org.id,
      ])
    ).rows;
    t.true(links.length >= 4, String(links.length));

    const ok = await o.api.get('/api/v2/audit-events/verification');
    t.is(ok.status, 200, JSON.stringify(ok.body));
    t.deepEqual(ok.body, {
      status: 'intact',
      checked: links.length,
      linked: links.length,
      pending: 0,
      breaks: [],
      fromPosition: 1,
      toPosition: links.length,
      complete: true,
      verifiedAt: clock().toISOString(),
    });
    const window = (await o.api.get('/api/v2/audit-events/verification?limit=2')).body;
    t.like(window, {
      status: 'intact',
      linked: 2,
      fromPosition: links.length - 1,
      toPosition: links.length,
      complete: false,
    });
    for (const q of ['limit=0', 'limit=50001', 'limit=x'])
      t.is((await o.api.get(`/api/v2/audit-events/verification?${q}`)).status, 400, q);

    // Tamper with the second event for real (the API reads on its own connections), then put it back.
    const target = links[1]!.event_id as string;
    const original = (await db().query('SELECT action FROM audit_events WHERE id = $1', [target])).rows[0]
      .action as string;
    const setAction = (action: string) =>
      db().transaction(async (tx) => {
        await tx.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update');
        await tx.query('UPDATE audit_events SET action = $2 WHERE id = $1', [target, action]);
        await tx.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update');
      });
    await setAction('organization.delete');
    try {
      const broken = (await o.api.get('/api/v2/audit-events/verification')).body;
      t.like(broken, { status: 'broken', linked: links.length });
      t.deepEqual(broken.breaks, [{ eventId: target, reason: 'hash does not match the content' }]);
      // A window that leaves the edited event out does not see it; another organization's chain is not affected.
      t.is((await o.api.get('/api/v2/audit-events/verification?limit=1')).body.status, 'intact');
      const other = await newOrganization(svc, uniq('verify-other'));
      t.is((await other.api.get('/api/v2/audit-events/verification')).body.status, 'intact');
    } finally {
      await setAction(original);
    }
    t.is((await o.api.get('/api/v2/audit-events/verification')).body.status, 'intact');
  },
);

test('the new routes are in openapi.json and capabilities.json', async (t) => {
  const spec = (await client(svc.url).get('/openapi.json')).body;
  t.truthy(spec.paths['/api/v2/caller'].get);
  t.truthy(spec.paths['/api/v2/organizations/{id}/overview'].get);
  t.truthy(spec.paths['/api/v2/resolutions'].get.parameters.find((x: any) => x.name === 'limit'));
  t.truthy(spec.paths['/api/v2/audit-events/verification'].get);
  const stream = spec.paths['/api/v2/inspector/actors/{kind}/{id}/stream'].get;
  t.is(stream['x-grpc-method'], 'scheduling.v1.InspectorService/WatchActor');
  t.truthy(stream.responses['200'].content['text/event-stream']);
  t.truthy(stream.responses['200'].content['text/event-stream']['x-sse-events'].actor.properties.revision);
  t.truthy(stream.responses['403']);
  const caps = (await client(svc.url).get('/capabilities.json')).body;
  for (const path of [
    '/api/v2/caller',
    '/api/v2/organizations/:id/overview',
    '/api/v2/audit-events/verification',
    '/api/v2/inspector/actors/:kind/:id/stream',
  ]) {
    t.truthy(
      caps.endpoints.find((e: any) => e.path === path),
      path,
    );
  }
});
