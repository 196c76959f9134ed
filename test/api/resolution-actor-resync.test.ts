import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { resolutionActorKind } from '../../machines/machine-versions.js';
import { actorKeys } from '../../src/persistence/redis-keys.js';
import { expireResolution } from '../../src/application/resolution/expire-resolution.js';

// A resolution whose ledger row exists without its actor in Redis (Redis lost it, or a crash came between the ledger
// and the actor's creation) gets the actor back on its next read: the machine replays what the ledger recorded.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '600' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** A fresh organization's resolution with options. */
async function resolved() {
  clock.set('2026-03-02T12:00:00Z');
  const o = await newOrganization(svc, `resync-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  const id = r.body.resolutionId as string;
  return { o, id, options: r.body.options as { optionId: string }[], base: `/api/v2/resolutions/${id}` };
}

/** Drops every key of the resolution's actor, as a Redis that lost it would. */
async function dropActor(id: string) {
  const k = actorKeys(resolutionActorKind.name, id);
  await svc.service.deps.redis.del([k.state, k.history, k.timers, k.outbox]);
  if (await svc.service.deps.actors.load(resolutionActorKind, id)) throw new Error('the actor is still there');
}

const actor = (id: string) => svc.service.deps.actors.getSnapshot(resolutionActorKind, id);

test.serial('a read recreates the actor from the ledger: a released hold and its timer', async (t) => {
  const { o, id, options, base } = await resolved();
  t.is((await o.api.post(`${base}/options/${options[0]!.optionId}/hold`)).status, 200);
  clock.set('2026-03-02T12:01:00Z');
  t.is((await o.api.delete(`${base}/options/${options[0]!.optionId}/hold`)).status, 200);
  const before = await actor(id);
  await dropActor(id);
  t.is((await o.api.get(base)).status, 200);
  const after = await actor(id);
  t.is(after?.value, 'resolved');
  t.deepEqual(after?.context, before?.context);
  const history = await svc.service.deps.actors.history(resolutionActorKind, id);
  t.deepEqual(
    history.map((h) => [h.event, h.to, h.causedBy?.type]),
    [
      ['create', 'resolved', 'system'],
      ['RESYNC', 'resolved', 'system'],
    ],
  );
  const timers = await svc.service.deps.redis.zRangeWithScores(actorKeys(resolutionActorKind.name, id).timers, 0, -1);
  t.deepEqual(
    timers.map((x) => [String(x.value), new Date(x.score).toISOString()]),
    [['expire', after!.context.expiresAt]],
  );
});

test.serial('an active hold and then a confirm: the rebuilt actor takes the next steps', async (t) => {
  const { o, id, options, base } = await resolved();
  const hold = await o.api.post(`${base}/options/${options[0]!.optionId}/hold`);
  t.is(hold.status, 200);
  await dropActor(id);
  t.is((await o.api.get(base)).status, 200);
  t.like((await actor(id))?.context, { activeHoldId: hold.body.holdId, bookingId: null });
  const booked = await o.api.post(
    `${base}/confirm`,
    { optionId: options[0]!.optionId, holdId: hold.body.holdId, customer },
    idem(),
  );
  t.is(booked.status, 200, JSON.stringify(booked.body));
  t.like((await actor(id))?.context, { activeHoldId: null, bookingId: booked.body.id });
  await dropActor(id);
  t.is((await o.api.get(base)).status, 200);
  t.like((await actor(id))?.context, { activeHoldId: null, bookingId: booked.body.id });
});

test.serial('a resolution the ledger records as expired comes back expired: 410', async (t) => {
  const { o, id, base } = await resolved();
  clock.set('2026-03-02T12:10:01Z');
  await expireResolution(svc.service.deps, id);
  const row = await svc.service.deps.db.query('SELECT status FROM resolutions WHERE id = $1', [id]);
  t.is(row.rows[0].status, 'expired');
  await dropActor(id);
  const read = await o.api.get(base);
  t.is(read.status, 410);
  t.is(read.body.error.code, 'RESOLUTION_EXPIRED');
  t.is((await actor(id))?.value, 'expired');
});

test.serial('another organization reading it is 403 and resyncs nothing', async (t) => {
  const { id, base } = await resolved();
  await dropActor(id);
  const other = await newOrganization(svc, `resync-other-${randomUUID().slice(0, 8)}`);
  t.is((await other.api.get(base)).status, 403);
  t.is(await actor(id), undefined);
});
