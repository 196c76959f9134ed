import test from 'ava';
import { appendAudit, verifyAuditChain } from '../../src/persistence/audit-log.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let platformKeyId: string;
test.before(async () => {
  svc = await startTestService();
  const keys = await platform().get('/api/v2/api-keys');
  platformKeyId = keys.body.data.find((k: any) => k.name === 'bootstrap').id;
});
test.after.always(async () => { await svc?.stop(); });

const platform = () => client(svc.url, svc.platformKey);

/** Creates an organization and an organization_test key for it. */
async function orgWithKey(externalId: string) {
  const created = await platform().post('/api/v2/organizations', { externalId, name: `Org ${externalId}` });
  const key = await platform().post('/api/v2/api-keys', { type: 'organization_test', organizationId: created.body.id, name: 'audit reader' });
  return { org: created.body, orgRequestId: created.headers.get('x-service-request-id')!, key: key.body.key as string, keyId: key.body.id as string };
}

/** Reads every audit event visible to a key, following cursors. */
async function allEvents(key: string, query = '', headers: Record<string, string> = {}) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res: any = await client(svc.url, key, headers).get(`/api/v2/audit-events?${query}${sep}limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`audit list answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

test('writes are recorded with actor, request id, before and after', async (t) => {
  const { org, orgRequestId, key, keyId } = await orgWithKey('audit-writes');
  const patched = await platform().patch(`/api/v2/organizations/${org.id}`, { name: 'Renamed' });
  t.is(patched.status, 200);
  const patchRequestId = patched.headers.get('x-service-request-id');
  t.truthy(patchRequestId);

  const res = await client(svc.url, key).get('/api/v2/audit-events');
  t.is(res.status, 200);
  t.false(res.body.hasMore);
  t.is(res.body.nextCursor, null);
  const events = res.body.data as any[];
  // Newest first: the update, then the key creation, then the organization creation.
  t.deepEqual(events.map((e) => e.action), ['organization.update', 'api_key.create', 'organization.create']);
  const [update, keyCreate, orgCreate] = events;
  t.deepEqual(update.actor, { keyId: platformKeyId, keyType: 'platform_test' });
  t.is(update.request_id, patchRequestId);
  t.is(update.resource_type, 'organization');
  t.is(update.resource_id, org.id);
  t.is(update.organization_id, org.id);
  t.is(update.before.name, 'Org audit-writes');
  t.is(update.after.name, 'Renamed');
  t.regex(update.id, /^aud_/);
  t.truthy(Date.parse(update.timestamp));
  t.is(keyCreate.resource_id, keyId);
  t.is(keyCreate.after.id, keyId);
  t.is(keyCreate.after.key, undefined, 'the secret is never written to the audit log');
  t.is(orgCreate.request_id, orgRequestId);
  t.is(orgCreate.before, null);
  t.is(orgCreate.after.externalId, 'audit-writes');
});

test('filters by action, resource_type and resource_id', async (t) => {
  const { org, key, keyId } = await orgWithKey('audit-filters');
  await platform().patch(`/api/v2/organizations/${org.id}`, { name: 'One' });
  await platform().patch(`/api/v2/organizations/${org.id}`, { name: 'Two' });
  const cases: { query: string; actions: string[] }[] = [
    { query: 'action=organization.update', actions: ['organization.update', 'organization.update'] },
    { query: 'resource_type=api_key', actions: ['api_key.create'] },
    { query: `resource_id=${keyId}`, actions: ['api_key.create'] },
    { query: `resource_id=${org.id}&action=organization.create`, actions: ['organization.create'] },
    { query: 'action=provider.create', actions: [] },
  ];
  for (const c of cases) {
    const res = await client(svc.url, key).get(`/api/v2/audit-events?${c.query}`);
    t.is(res.status, 200, c.query);
    t.deepEqual(res.body.data.map((e: any) => e.action), c.actions, c.query);
  }
  for (const bad of ['limit=0', 'limit=abc', 'limit=501', 'cursor=%21%21']) {
    const res = await client(svc.url, key).get(`/api/v2/audit-events?${bad}`);
    t.is(res.status, 400, bad);
    t.is(res.body.error.code, 'VALIDATION_ERROR', bad);
  }
});

test('cursor paging walks every event once, newest first', async (t) => {
  const { org, key } = await orgWithKey('audit-paging');
  for (let i = 0; i < 5; i++) await platform().patch(`/api/v2/organizations/${org.id}`, { name: `Name ${i}` });
  const full = await client(svc.url, key).get('/api/v2/audit-events?limit=100');
  t.is(full.body.data.length, 7);
  const first = await client(svc.url, key).get('/api/v2/audit-events?limit=3');
  t.true(first.body.hasMore);
  t.is(typeof first.body.nextCursor, 'string');
  const paged = await allEvents(key);
  t.deepEqual(paged.map((e) => e.id), full.body.data.map((e: any) => e.id));
  t.is(new Set(paged.map((e) => e.id)).size, 7);
  t.deepEqual(paged.filter((e) => e.action === 'organization.update').map((e) => e.after.name), ['Name 4', 'Name 3', 'Name 2', 'Name 1', 'Name 0']);
});

test('an organization key sees only its own organization’s events', async (t) => {
  const a = await orgWithKey('audit-tenant-a');
  const b = await orgWithKey('audit-tenant-b');
  const seenByA = await allEvents(a.key);
  t.true(seenByA.length > 0);
  t.true(seenByA.every((e) => e.organization_id === a.org.id));
  const probe = await client(svc.url, a.key).get(`/api/v2/audit-events?resource_id=${b.org.id}`);
  t.deepEqual(probe.body.data, []);
  // A platform key without the header acts in its default organization, not in A.
  const platformView = await allEvents(svc.platformKey);
  t.false(platformView.some((e) => e.organization_id === a.org.id));
  // With the header it reads A's log.
  const viaHeader = await client(svc.url, svc.platformKey, { 'service-organization-id': a.org.id }).get(`/api/v2/audit-events?resource_id=${a.keyId}`);
  t.deepEqual(viaHeader.body.data.map((e: any) => e.action), ['api_key.create']);
});

test('a read by a platform key with Service-Organization-Id is recorded', async (t) => {
  const { org, key } = await orgWithKey('audit-header-read');
  const read = await client(svc.url, svc.platformKey, { 'service-organization-id': org.id }).get(`/api/v2/organizations/${org.id}`);
  t.is(read.status, 200);
  const requestId = read.headers.get('x-service-request-id');
  // A read without the header leaves no trace.
  const plain = await platform().get(`/api/v2/organizations/${org.id}`);
  const events = await allEvents(key, 'action=organization.read');
  t.is(events.length, 1);
  t.like(events[0], { request_id: requestId, resource_type: 'organization', resource_id: org.id, organization_id: org.id, actor: { keyId: platformKeyId, keyType: 'platform_test' } });
  t.not(events[0].request_id, plain.headers.get('x-service-request-id'));
});

test('the audit table refuses UPDATE, DELETE and TRUNCATE', async (t) => {
  await orgWithKey('audit-immutable');
  const db = svc.service.deps.db;
  for (const sql of ["UPDATE audit_events SET action = 'x'", 'DELETE FROM audit_events', 'TRUNCATE audit_events']) {
    const err = await t.throwsAsync(() => db.query(sql), undefined, sql);
    t.regex(err!.message, /append-only/, sql);
  }
  const count = await db.query("SELECT count(*)::int AS n FROM audit_events WHERE action = 'x'");
  t.is(count.rows[0].n, 0);
});

test('verifyAuditChain detects an edited event', async (t) => {
  const { org } = await orgWithKey('audit-tamper');
  const db = svc.service.deps.db;
  t.deepEqual((await verifyAuditChain(db)).breaks, []);
  const target = (await db.query('SELECT id FROM audit_events WHERE organization_id = $1 ORDER BY seq LIMIT 1', [org.id])).rows[0].id as string;
  // Only a superuser disabling the trigger can edit a row; do it in a transaction that is rolled back.
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    await tx.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update');
    await tx.query("UPDATE audit_events SET action = 'organization.delete' WHERE id = $1", [target]);
    const report = await verifyAuditChain(tx);
    t.deepEqual(report.breaks, [{ organizationId: org.id, id: target, reason: 'hash does not match the content' }]);
  } finally {
    await tx.query('ROLLBACK').catch(() => undefined);
    tx.release();
  }
  const trigger = await db.query("SELECT tgenabled FROM pg_trigger WHERE tgname = 'audit_events_no_update'");
  t.is(trigger.rows[0].tgenabled, 'O', 'the trigger is enabled again');
  t.deepEqual((await verifyAuditChain(db)).breaks, []);
});

test('concurrent appends from many connections keep one linear chain per organization', async (t) => {
  const { org } = await orgWithKey('audit-concurrent');
  const db = svc.service.deps.db;
  const before = (await db.query('SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1', [org.id])).rows[0].n as number;
  // 40 transactions at once, each appending two events and holding its transaction open a moment.
  await Promise.all(Array.from({ length: 40 }, (_, i) => db.transaction(async (tx) => {
    const entry = { platformId: org.platformId ?? 'plt_x', organizationId: org.id, actor: { type: 'system' as const }, resourceType: 'test', resourceId: `r${i}`, requestId: null, before: null, after: { i }, timestamp: new Date() };
    await appendAudit(tx, { ...entry, action: 'test.first' });
    await tx.query('SELECT pg_sleep(0.002)');
    await appendAudit(tx, { ...entry, action: 'test.second' });
  })));
  const rows = (await db.query('SELECT seq, prev_hash, hash, chain_body FROM audit_events WHERE organization_id = $1 ORDER BY seq', [org.id])).rows;
  t.is(rows.length, before + 80);
  for (let i = 1; i < rows.length; i++) t.is(rows[i].prev_hash, rows[i - 1].hash, `link at seq ${rows[i].seq}`);
  t.true(rows.every((r) => r.chain_body === null), 'the canonical body is not stored twice');
  const head = await db.query('SELECT hash FROM audit_chain_heads WHERE organization_id = $1', [org.id]);
  t.is(head.rows[0].hash, rows[rows.length - 1].hash);
  t.deepEqual((await verifyAuditChain(db)).breaks, []);
});

test('an audit insert that bypasses the chain is refused', async (t) => {
  const { org } = await orgWithKey('audit-bypass');
  const db = svc.service.deps.db;
  const err = await t.throwsAsync(() => db.query(
    `INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, "timestamp", prev_hash, hash)
     VALUES ('aud_forged', 'plt', $1, '{}', 'x', 'y', now(), $2, $2)`, [org.id, '0'.repeat(64)]));
  t.regex(err!.message, /chain_body is required/);
  t.deepEqual((await verifyAuditChain(db)).breaks, []);
});
