import test from 'ava';
import type pg from 'pg';
import { appendAudit, type AuditEntry } from '../../src/persistence/audit-log.js';
import { linkAuditChain } from '../../src/persistence/audit-chain.js';
import { verifyAuditChain } from '../../src/persistence/verify-audit-chain.js';
import { client } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { inRolledBackTransaction } from '../helpers/rolled-back-transaction.js';

let svc: TestService;
let platformKeyId: string;
test.before(async () => {
  svc = await startTestService();
  const keys = await platform().get('/api/v2/api-keys');
  platformKeyId = keys.body.data.find((k: any) => k.name === 'bootstrap').id;
});
test.after.always(async () => {
  await svc?.stop();
});

const platform = () => client(svc.url, svc.platformKey);

/** Creates an organization and an organization_test key for it. */
async function orgWithKey(externalId: string) {
  const created = await platform().post('/api/v2/organizations', { externalId, name: `Org ${externalId}` });
  const key = await platform().post('/api/v2/api-keys', {
    type: 'organization_test',
    organizationId: created.body.id,
    name: 'audit reader',
  });
  return {
    org: created.body,
    orgRequestId: created.headers.get('x-service-request-id')!,
    key: key.body.key as string,
    keyId: key.body.id as string,
  };
}

/** Reads every audit event visible to a key, following cursors. */
async function allEvents(key: string, query = '', headers: Record<string, string> = {}) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res: any = await client(svc.url, key, headers).get(
      `/api/v2/audit-events?${query}${sep}limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
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
  t.deepEqual(
    events.map((e) => e.action),
    ['organization.update', 'api_key.create', 'organization.create'],
  );
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
    t.deepEqual(
      res.body.data.map((e: any) => e.action),
      c.actions,
      c.query,
    );
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
  t.deepEqual(
    paged.map((e) => e.id),
    full.body.data.map((e: any) => e.id),
  );
  t.is(new Set(paged.map((e) => e.id)).size, 7);
  t.deepEqual(
    paged.filter((e) => e.action === 'organization.update').map((e) => e.after.name),
    ['Name 4', 'Name 3', 'Name 2', 'Name 1', 'Name 0'],
  );
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
  const viaHeader = await client(svc.url, svc.platformKey, { 'service-organization-id': a.org.id }).get(
    `/api/v2/audit-events?resource_id=${a.keyId}`,
  );
  t.deepEqual(
    viaHeader.body.data.map((e: any) => e.action),
    ['api_key.create'],
  );
});

test('a read by a platform key with Service-Organization-Id is recorded', async (t) => {
  const { org, key } = await orgWithKey('audit-header-read');
  const read = await client(svc.url, svc.platformKey, { 'service-organization-id': org.id }).get(
    `/api/v2/organizations/${org.id}`,
  );
  t.is(read.status, 200);
  const requestId = read.headers.get('x-service-request-id');
  // A read without the header leaves no trace.
  const plain = await platform().get(`/api/v2/organizations/${org.id}`);
  // The read's event goes through the Redis stream; flush waits until the drain wrote it and the sequencer linked it.
  await svc.service.audit.flush();
  const events = await allEvents(key, 'action=organization.read');
  t.is(events.length, 1);
  t.like(events[0], {
    request_id: requestId,
    resource_type: 'organization',
    resource_id: org.id,
    organization_id: org.id,
    after: null,
    actor: { keyId: platformKeyId, keyType: 'platform_test' },
  });
  t.not(events[0].request_id, plain.headers.get('x-service-request-id'));
  const linked = await svc.service.deps.db.query('SELECT 1 FROM audit_chain WHERE event_id = $1', [events[0].id]);
  t.is(linked.rowCount, 1, 'the read event is linked into the chain');
});

test('a write with Service-Organization-Id yields exactly one event for its request id; a write that changed nothing yields one too', async (t) => {
  const { org } = await orgWithKey('audit-header-write');
  const viaHeader = client(svc.url, svc.platformKey, { 'service-organization-id': org.id });
  const created = await viaHeader.post('/api/v2/ranking-policies', { name: 'Header policy' });
  t.is(created.status, 200);
  const changed = await viaHeader.patch(`/api/v2/ranking-policies/${created.body.id}`, { name: 'Renamed policy' });
  t.is(changed.status, 200);
  const unchanged = await viaHeader.patch(`/api/v2/ranking-policies/${created.body.id}`, { name: 'Renamed policy' });
  t.is(unchanged.status, 200);
  await svc.service.audit.flush();
  const db = svc.service.deps.db;
  const byRequest = async (res: { headers: Headers }) =>
    (
      await db.query('SELECT action, before, after FROM audit_events WHERE request_id = $1', [
        res.headers.get('x-service-request-id'),
      ])
    ).rows;
  const [createEvents, changeEvents, noopEvents] = [
    await byRequest(created),
    await byRequest(changed),
    await byRequest(unchanged),
  ];
  t.deepEqual(
    createEvents.map((e) => e.action),
    ['ranking_policy.create'],
  );
  t.deepEqual(
    changeEvents.map((e) => e.action),
    ['ranking_policy.update'],
  );
  t.is(changeEvents[0].after.name, 'Renamed policy', "the write's own event, not a header record");
  // The PATCH changed nothing, so it recorded nothing itself: the header use is recorded instead.
  t.deepEqual(noopEvents, [{ action: 'ranking_policy.update', before: null, after: null }]);
});

test('a failed request with Service-Organization-Id is recorded with its error code; one that fails authentication is not', async (t) => {
  const { org } = await orgWithKey('audit-header-failed');
  const missing = await client(svc.url, svc.platformKey, { 'service-organization-id': org.id }).get(
    '/api/v2/ranking-policies/pol_missing',
  );
  t.is(missing.status, 404);
  const foreign = await client(svc.url, svc.platformKey, { 'service-organization-id': 'org_not_here' }).get(
    '/api/v2/ranking-policies',
  );
  t.is(foreign.status, 403);
  await svc.service.audit.flush();
  const db = svc.service.deps.db;
  const rows = (
    await db.query('SELECT organization_id, action, resource_id, after FROM audit_events WHERE request_id = $1', [
      missing.headers.get('x-service-request-id'),
    ])
  ).rows;
  t.deepEqual(rows, [
    {
      organization_id: org.id,
      action: 'ranking_policy.read',
      resource_id: 'pol_missing',
      after: { error: { code: 'POLICY_NOT_FOUND' } },
    },
  ]);
  const none = await db.query('SELECT 1 FROM audit_events WHERE request_id = $1', [
    foreign.headers.get('x-service-request-id'),
  ]);
  t.is(none.rowCount, 0, 'no organization to record it in: the header named none of this platform');
});

test('the audit tables refuse UPDATE, DELETE and TRUNCATE', async (t) => {
  await orgWithKey('audit-immutable');
  await svc.service.audit.flush();
  const db = svc.service.deps.db;
  for (const [table, column] of [
    ['audit_events', 'action'],
    ['audit_chain', 'hash'],
  ]) {
    for (const sql of [`UPDATE ${table} SET ${column} = 'x'`, `DELETE FROM ${table}`, `TRUNCATE ${table}`]) {
      const err = await t.throwsAsync(() => db.query(sql), undefined, sql);
      t.regex(err!.message, /append-only/, sql);
    }
  }
  const count = await db.query(
    "SELECT (SELECT count(*) FROM audit_events WHERE action = 'x')::int + (SELECT count(*) FROM audit_chain WHERE hash = 'x')::int AS n",
  );
  t.is(count.rows[0].n, 0);
});

test.serial(
  'verifyAuditChain detects an edited event, an edited link, a removed link and an event the sequencer passed over',
  async (t) => {
    const { org } = await orgWithKey('audit-tamper');
    await platform().patch(`/api/v2/organizations/${org.id}`, { name: 'Tampered later' });
    await svc.service.audit.flush();
    const db = svc.service.deps.db;
    t.deepEqual((await verifyAuditChain(db)).breaks, []);
    const links = (
      await db.query('SELECT event_id, position FROM audit_chain WHERE organization_id = $1 ORDER BY position', [
        org.id,
      ])
    ).rows;
    t.true(links.length >= 3);
    const [first, second] = links as { event_id: string; position: number }[];
    const forOrg = (report: Awaited<ReturnType<typeof verifyAuditChain>>) =>
      report.breaks.filter((b) => b.organizationId === org.id);

    await inRolledBackTransaction(svc.service.deps.db.pool, async (tx) => {
      await tx.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update');
      await tx.query("UPDATE audit_events SET action = 'organization.delete' WHERE id = $1", [first!.event_id]);
      t.deepEqual(forOrg(await verifyAuditChain(tx)), [
        { organizationId: org.id, id: first!.event_id, reason: 'hash does not match the content' },
      ]);
    });
    await inRolledBackTransaction(svc.service.deps.db.pool, async (tx) => {
      await tx.query('ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update');
      await tx.query("UPDATE audit_chain SET hash = repeat('f', 64) WHERE event_id = $1", [first!.event_id]);
      t.deepEqual(
        forOrg(await verifyAuditChain(tx)).map((b) => [b.id, b.reason]),
        [
          [first!.event_id, 'hash does not match the content'],
          [second!.event_id, 'prev_hash does not match the previous link'],
        ],
      );
    });
    await inRolledBackTransaction(svc.service.deps.db.pool, async (tx) => {
      await tx.query('ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update');
      await tx.query('DELETE FROM audit_chain WHERE event_id = $1', [second!.event_id]);
      const reasons = forOrg(await verifyAuditChain(tx)).map((b) => b.reason);
      t.true(reasons.includes('event was passed over by the sequencer: not linked'), reasons.join('; '));
      t.true(
        reasons.some((r) => /links are missing/.test(r)),
        reasons.join('; '),
      );
    });
    await inRolledBackTransaction(svc.service.deps.db.pool, async (tx) => {
      // An event slipped in with a transaction id the sequencer has already passed is never linked: a break.
      await tx.query(
        `INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, "timestamp", txid)
      VALUES ('aud_forged', 'plt_x', $1, '{"type":"system"}', 'x.y', 'y', now(), '3'::xid8)`,
        [org.id],
      );
      t.deepEqual(forOrg(await verifyAuditChain(tx)), [
        { organizationId: org.id, id: 'aud_forged', reason: 'event was passed over by the sequencer: not linked' },
      ]);
    });
    const triggers = await db.query(
      "SELECT tgname, tgenabled FROM pg_trigger WHERE tgname IN ('audit_events_no_update', 'audit_chain_no_update') ORDER BY tgname",
    );
    t.deepEqual(
      triggers.rows.map((r) => r.tgenabled),
      ['O', 'O'],
      'the triggers are enabled again',
    );
    t.deepEqual((await verifyAuditChain(db)).breaks, []);
  },
);

/** An audit entry of `org` for tests that append directly. */
function entryOf(org: { id: string; platformId?: string }, action: string, after: unknown): AuditEntry {
  return {
    platformId: org.platformId ?? 'plt_x',
    organizationId: org.id,
    actor: { type: 'system' },
    action,
    resourceType: 'test',
    resourceId: null,
    requestId: null,
    before: null,
    after,
    timestamp: new Date(),
  };
}

test.serial(
  'concurrent appends from many connections do not wait for each other and all end up in one linear chain',
  async (t) => {
    const { org } = await orgWithKey('audit-concurrent');
    const db = svc.service.deps.db;
    await svc.service.audit.flush();
    const before = (await db.query('SELECT count(*)::int AS n FROM audit_chain WHERE organization_id = $1', [org.id]))
      .rows[0].n as number;
    // 40 transactions at once, each appending two events and holding its transaction open a moment.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction(async (tx) => {
          await appendAudit(tx, entryOf(org, 'test.first', { i }));
          await tx.query('SELECT pg_sleep(0.002)');
          await appendAudit(tx, entryOf(org, 'test.second', { i }));
        }),
      ),
    );
    await svc.service.audit.flush();
    const links = (
      await db.query('SELECT position, prev_hash, hash FROM audit_chain WHERE organization_id = $1 ORDER BY position', [
        org.id,
      ])
    ).rows;
    t.is(links.length, before + 80);
    links.forEach((l, i) => t.is(Number(l.position), i + 1, 'positions from 1 without a gap'));
    for (let i = 1; i < links.length; i++)
      t.is(links[i].prev_hash, links[i - 1].hash, `link at position ${links[i].position}`);
    const unlinked = await db.query(
      'SELECT count(*)::int AS n FROM audit_events e WHERE organization_id = $1 AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.event_id = e.id)',
      [org.id],
    );
    t.is(unlinked.rows[0].n, 0);
    t.deepEqual((await verifyAuditChain(db)).breaks, []);
  },
);

test.serial(
  'an event of a transaction still open holds linking back, is pending meanwhile, and is linked before later commits',
  async (t) => {
    const { org } = await orgWithKey('audit-horizon');
    const db = svc.service.deps.db;
    await svc.service.audit.flush();
    const slow = await db.pool.connect();
    try {
      await slow.query('BEGIN');
      const slowId = await appendAudit(slow, entryOf(org, 'test.slow', null));
      // Committed after the slow transaction began, and so with a larger txid.
      const fastId = await db.transaction((tx) => appendAudit(tx, entryOf(org, 'test.fast', null)));
      await linkAuditChain(db);
      const linkedWhileOpen = await db.query('SELECT event_id FROM audit_chain WHERE event_id = $1', [fastId]);
      t.is(linkedWhileOpen.rowCount, 0, 'the later event waits for the open transaction');
      const report = await verifyAuditChain(db);
      t.deepEqual(report.breaks, []);
      t.true(report.pending >= 1);
      await slow.query('COMMIT');
      await svc.service.audit.flush();
      const order = (
        await db.query('SELECT event_id FROM audit_chain WHERE event_id = ANY($1) ORDER BY position', [
          [slowId, fastId],
        ])
      ).rows.map((r) => r.event_id);
      t.deepEqual(order, [slowId, fastId], 'chain order is transaction order, not commit order');
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      slow.release();
    }
    t.deepEqual((await verifyAuditChain(db)).breaks, []);
  },
);
