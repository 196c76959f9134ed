import test from 'ava';
import { client } from '../helpers/http.js';
import { createTestClock } from '../helpers/test-clock.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

// No workers run in this service: a read's audit event waits in the Redis stream until a test flushes it, the way it
// waits ~200 ms for the drain in production while later writes commit their own events at once.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { SERVICE_ROLES: 'gateway,grpc' } });
});
test.after.always(async () => {
  await svc?.stop();
});

/** An organization, a platform client acting in it with Service-Organization-Id, and an organization key's client. */
async function organization(externalId: string) {
  const platform = client(svc.url, svc.platformKey);
  const org = (await platform.post('/api/v2/organizations', { externalId, name: externalId })).body;
  const key = (
    await platform.post('/api/v2/api-keys', { type: 'organization_test', organizationId: org.id, name: 'r' })
  ).body.key as string;
  return {
    org,
    inOrg: client(svc.url, svc.platformKey, { 'service-organization-id': org.id }),
    reader: client(svc.url, key),
  };
}

/** Every event of the organization key's list, following cursors `limit` at a time. */
async function pages(reader: ReturnType<typeof client>, limit: number) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await reader.get(`/api/v2/audit-events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`audit list answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

const newestFirst = (a: any, b: any) =>
  a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

test.serial('a read recorded after a newer write is listed in request time order, on every page', async (t) => {
  const { org, inOrg, reader } = await organization('audit-order');
  const readAt = clock().toISOString();
  t.is((await inOrg.get(`/api/v2/organizations/${org.id}`)).status, 200);
  clock.advance(1000);
  const writeAt = clock().toISOString();
  t.is((await inOrg.patch(`/api/v2/organizations/${org.id}`, { name: 'Renamed' })).status, 200);
  // Two writes at the same instant: their order is their ids'.
  t.is((await inOrg.patch(`/api/v2/organizations/${org.id}`, { name: 'Renamed twice' })).status, 200);
  // The read's event reaches audit_events only now, after both writes' events.
  await svc.service.audit.flush();

  const all = await pages(reader, 100);
  t.deepEqual(
    all.slice(0, 3).map((e) => [e.action, e.timestamp]),
    [
      ['organization.update', writeAt],
      ['organization.update', writeAt],
      ['organization.read', readAt],
    ],
  );
  t.deepEqual(
    all.map((e) => e.id),
    [...all].sort(newestFirst).map((e) => e.id),
    'newest first by timestamp, ties by id',
  );
  for (const limit of [1, 2])
    t.deepEqual(
      (await pages(reader, limit)).map((e) => e.id),
      all.map((e) => e.id),
      `pages of ${limit}`,
    );

  // The chain is linked in commit order, which the list no longer follows: it still verifies.
  const verified = await reader.get('/api/v2/audit-events/verification');
  t.is(verified.status, 200);
  t.like(verified.body, { status: 'intact', breaks: [], pending: 0 });
});

test.serial('a cursor issued before the list was ordered by time (an event seq) goes on from that event', async (t) => {
  const { org, inOrg, reader } = await organization('audit-legacy-cursor');
  for (let i = 0; i < 3; i++) {
    clock.advance(1000);
    await inOrg.patch(`/api/v2/organizations/${org.id}`, { name: `Name ${i}` });
  }
  await svc.service.audit.flush();
  const all = await pages(reader, 100);
  const second = await svc.service.deps.db.query('SELECT seq FROM audit_events WHERE id = $1', [all[1].id]);
  const legacy = Buffer.from(String(second.rows[0].seq)).toString('base64url');
  const rest = await reader.get(`/api/v2/audit-events?limit=100&cursor=${legacy}`);
  t.is(rest.status, 200);
  t.deepEqual(
    rest.body.data.map((e: any) => e.id),
    all.slice(2).map((e) => e.id),
  );
  const bad = await reader.get(`/api/v2/audit-events?cursor=${Buffer.from('2026-03-02|x').toString('base64url')}`);
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'VALIDATION_ERROR');
});
