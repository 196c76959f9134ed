import test from 'ava';
import { createHeaderUseRecorder } from '../../src/application/audit/record-header-use.js';
import { auditActor, type Caller } from '../../src/application/caller.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { auditInsertParams, insertAuditEvents, type PreparedAuditEvent } from '../../src/persistence/audit-log.js';
import { AUDIT_STREAM, createAuditStream, type AuditStream } from '../../src/persistence/audit-stream.js';
import { createDatabase, type Database } from '../../src/persistence/database.js';
import { newId } from '../../src/persistence/new-id.js';
import { runMigrations } from '../../src/persistence/run-migrations.js';
import { createRedis } from '../../src/persistence/redis-client.js';
import { createAuditDrain } from '../../src/workers/audit-drain.js';
import { startTestRedis, type TestRedis } from '../helpers/private-redis.js';
import { createTestDatabase } from '../helpers/test-database.js';

// One stream key per server, so the tests run one at a time on an emptied server.
let redis: TestRedis;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Database;
let stream: AuditStream;
test.before(async () => {
  redis = await startTestRedis();
  database = await createTestDatabase({ schema: 'migrated' });
  db = createDatabase(database.url);
  await runMigrations(db.pool);
  stream = createAuditStream({ redis: redis.client });
});
test.beforeEach(async () => {
  await redis.client.flushAll();
});
test.after.always(async () => {
  await db?.close();
  await database?.drop();
  await redis?.stop();
});

const quiet = () => undefined;

/** A prepared header-use event of organization `org`. */
function prepared(org: string, unlessEventIds: string[] = []): PreparedAuditEvent {
  const timestamp = new Date('2026-03-02T10:00:00.000Z');
  return {
    id: newId('aud', timestamp.getTime()),
    entry: {
      platformId: 'plt_t',
      organizationId: org,
      actor: { keyId: 'key_t', keyType: 'platform_test' },
      action: 'organization.read',
      resourceType: 'organization',
      resourceId: org,
      requestId: `req_${org}`,
      before: null,
      after: null,
      timestamp,
    },
    unlessEventIds,
  };
}

const stored = async (ids: string[]) =>
  (await db.query('SELECT id FROM audit_events WHERE id = ANY($1) ORDER BY id', [ids])).rows.map((r) => r.id as string);

test.serial(
  'entries a dead consumer left unacknowledged are claimed and written once, the stream ends empty',
  async (t) => {
    const events = Array.from({ length: 5 }, () => prepared('org_dead'));
    for (const e of events) await stream.append(e);
    await stream.ensureGroup();
    // What a kill -9 leaves behind: entries delivered to a consumer that never acknowledged them, two of them
    // already committed to PostgreSQL (the crash came between the commit and the XACK).
    const delivered = await stream.read('dead-consumer', 10, 60_000);
    t.is(delivered.entryIds.length, 5);
    await insertAuditEvents(db, events.slice(0, 2));
    const drain = createAuditDrain({ db, stream, log: quiet, consumer: 'survivor', claimIdleMs: 50 });
    await drain.flush({ timeoutMs: 10_000 });
    const ids = events.map((e) => e.id);
    t.deepEqual(await stored(ids), [...ids].sort());
    t.is(await redis.client.xLen(AUDIT_STREAM.key), 0, 'acknowledged entries leave the stream');
    // Writing the same batch again (a re-delivery) stores nothing more.
    t.is(await insertAuditEvents(db, events), 0);
  },
);

test.serial('an event marked "unless" is dropped when one of those events exists, and stored otherwise', async (t) => {
  const own = prepared('org_own');
  await insertAuditEvents(db, [own]);
  const redundant = prepared('org_unless', [own.id]);
  const needed = prepared('org_unless', [newId('aud')]);
  await stream.append(redundant);
  await stream.append(needed);
  const drain = createAuditDrain({ db, stream, log: quiet });
  await drain.flush({ timeoutMs: 10_000 });
  t.deepEqual(await stored([redundant.id, needed.id]), [needed.id]);
});

test.serial(
  'an entry that is not an audit event is dropped and logged; the others of its batch are written',
  async (t) => {
    const good = prepared('org_malformed');
    await redis.client.xAdd(AUDIT_STREAM.key, '*', { e: '{"not":"an event"}' });
    await stream.append(good);
    const logged: string[] = [];
    const drain = createAuditDrain({ db, stream, log: (msg) => logged.push(msg) });
    await drain.flush({ timeoutMs: 10_000 });
    t.deepEqual(await stored([good.id]), [good.id]);
    t.deepEqual(logged, ['audit stream entry is not an audit event; dropped']);
    t.is(await redis.client.xLen(AUDIT_STREAM.key), 0);
  },
);

test.serial('a call made with the header is answered 503 when its record cannot reach Redis', async (t) => {
  const closed = await createRedis(redis.url);
  closed.destroy();
  const record = createHeaderUseRecorder({ stream: createAuditStream({ redis: closed }), clock: () => new Date() });
  const caller: Caller = {
    requestId: 'req_down',
    keyId: 'key_t',
    keyType: 'platform_test',
    mode: 'test',
    platformId: 'plt_t',
    organizationId: 'org_t',
    isPlatformKey: true,
    viaOrganizationHeader: true,
  };
  const err = await t.throwsAsync(() =>
    record(
      caller,
      { action: 'organization.read', resourceType: 'organization', kind: 'read' },
      { params: {}, query: {}, body: undefined, headers: {} },
      { ok: true, replayed: false },
    ),
  );
  t.true(err instanceof ServiceError);
  t.is((err as ServiceError).code, 'SERVICE_UNAVAILABLE');
});

test.serial(
  'a successful write made with the header is recorded by its own event only; one that appended none is recorded by the stream',
  async (t) => {
    const record = createHeaderUseRecorder({ stream, clock: () => new Date('2026-03-02T10:00:00.000Z') });
    const newCaller = (requestId: string): Caller => ({
      requestId,
      keyId: 'key_t',
      keyType: 'platform_test',
      mode: 'test',
      platformId: 'plt_t',
      organizationId: 'org_t',
      isPlatformKey: true,
      viaOrganizationHeader: true,
    });
    const input = { params: { id: 'res_1' }, query: {}, body: undefined, headers: {} };
    const write = { action: 'organization.update', resourceType: 'organization', kind: 'write' as const };
    // The write's own event, prepared with the request's audit actor (what every write path does).
    const wrote = newCaller('req_wrote');
    auditInsertParams({
      platformId: 'plt_t',
      organizationId: 'org_t',
      actor: auditActor(wrote),
      action: 'organization.update',
      resourceType: 'organization',
      resourceId: 'res_1',
      requestId: 'req_wrote',
      before: null,
      after: null,
      timestamp: new Date(),
    });
    await record(wrote, write, input, { ok: true, replayed: false });
    t.is(await redis.client.xLen(AUDIT_STREAM.key), 0, 'nothing appended: no round trip');
    // A "write" that appended nothing (its table is wrong, or it changed nothing) and an idempotent replay are recorded.
    await record(newCaller('req_silent'), write, input, { ok: true, replayed: false });
    await record(newCaller('req_replay'), write, input, { ok: true, replayed: true });
    const entries = (await redis.client.xRange(AUDIT_STREAM.key, '-', '+')) ?? [];
    t.deepEqual(
      entries.map((e) => JSON.parse(e.message.e!).entry.requestId),
      ['req_silent', 'req_replay'],
    );
    t.deepEqual(JSON.parse(entries[1]!.message.e!).entry.after, { idempotentReplay: true });
  },
);
