import test from 'ava';
import { randomBytes } from 'node:crypto';
import { waitForAuditLinks } from '../../src/persistence/audit-chain.js';
import { AUDIT_STREAM, createAuditStream } from '../../src/persistence/audit-stream.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { createRedis, type Redis } from '../../src/persistence/redis-client.js';
import { verifyAuditChain } from '../../src/persistence/verify-audit-chain.js';
import { createAuditDrain } from '../../src/workers/audit-drain.js';
import { client, type JsonResponse } from '../helpers/http.js';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.js';
import { startTestStores, type TestStores } from '../helpers/test-service.js';

// Two service processes (the `npm start` command) on shared stores; one is killed with SIGKILL right after a burst.
let stores: TestStores;
let db: Database;
let redis: Redis;
const procs: ServiceProcess[] = [];
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;

test.before(async () => {
  stores = await startTestStores();
  procs.push(
    ...(await startServiceProcesses(2, {
      databaseUrl: stores.databaseUrl,
      redisUrl: stores.redisUrl,
      platformKey,
      name: 'audit-proc',
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    })),
  );
  db = createDatabase(stores.databaseUrl);
  redis = await createRedis(stores.redisUrl);
});
test.after.always(async () => {
  for (const p of procs) await p.kill('SIGKILL').catch(() => undefined);
  await redis?.close().catch(() => undefined);
  await db?.close();
  await stores?.stop();
});

test('writes, reads and failures made with the header through two processes, one then killed -9: each recorded exactly once, all linked, the chain verifies', async (t) => {
  const [a, b] = procs as [ServiceProcess, ServiceProcess];
  const org = (
    await client(a.url, platformKey).post('/api/v2/organizations', {
      externalId: 'audit-two-procs',
      name: 'Two processes',
    })
  ).body;
  // 120 calls, 12 at a time, alternating processes: header writes (each commits its own event), header reads and
  // failed header calls (each appended to the Redis stream before its answer).
  const calls: { kind: 'write' | 'read' | 'failed'; res: JsonResponse }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      while (next < 120) {
        const i = next++;
        const api = client(i % 2 ? a.url : b.url, platformKey, { 'service-organization-id': org.id });
        const kind = (['write', 'read', 'failed'] as const)[i % 3]!;
        const res =
          kind === 'write'
            ? await api.post('/api/v2/ranking-policies', { name: `Policy ${i}` })
            : kind === 'read'
              ? await api.get(`/api/v2/organizations/${org.id}`)
              : await api.get(`/api/v2/ranking-policies/pol_missing_${i}`);
        calls.push({ kind, res });
      }
    }),
  );
  // Killed right after answering: whatever it had appended but not yet drained is pending in the stream (read by its
  // consumer and unacknowledged, or not read at all).
  await a.kill('SIGKILL');
  t.deepEqual(
    calls.map((c) => c.res.status).sort(),
    [...Array(40).fill(200), ...Array(40).fill(200), ...Array(40).fill(404)].sort(),
  );

  // Another drain takes over the dead consumer's entries (a short claim time instead of the service's 10 s).
  const drain = createAuditDrain({
    db,
    stream: createAuditStream({ redis }),
    log: () => undefined,
    consumer: 'test-takeover',
    claimIdleMs: 100,
  });
  await drain.flush({ timeoutMs: 30_000 });
  await waitForAuditLinks(db);

  const ids = calls.map((c) => c.res.headers.get('x-service-request-id'));
  const rows = (await db.query('SELECT request_id, action, after FROM audit_events WHERE request_id = ANY($1)', [ids]))
    .rows;
  const byRequest = new Map<string, any[]>();
  for (const r of rows) byRequest.set(r.request_id, [...(byRequest.get(r.request_id) ?? []), r]);
  for (const c of calls) {
    const events = byRequest.get(c.res.headers.get('x-service-request-id')!) ?? [];
    t.is(events.length, 1, `${c.kind} ${c.res.headers.get('x-service-request-id')}: exactly one event`);
    const expected =
      c.kind === 'write' ? 'ranking_policy.create' : c.kind === 'read' ? 'organization.read' : 'ranking_policy.read';
    t.is(events[0]?.action, expected);
    if (c.kind === 'failed') t.deepEqual(events[0]?.after, { error: { code: 'POLICY_NOT_FOUND' } });
  }
  t.is(await redis.xLen(AUDIT_STREAM.key), 0, 'nothing left in the stream');
  const unlinked = await db.query(
    'SELECT count(*)::int AS n FROM audit_events e WHERE NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.event_id = e.id)',
  );
  t.is(unlinked.rows[0].n, 0);
  const links = (
    await db.query('SELECT position FROM audit_chain WHERE organization_id = $1 ORDER BY position', [org.id])
  ).rows.map((r) => Number(r.position));
  t.deepEqual(
    links,
    links.map((_, i) => i + 1),
    'one chain per organization, positions without a gap',
  );
  const report = await verifyAuditChain(db);
  t.deepEqual(report.breaks, []);
  t.is(report.pending, 0);
});
