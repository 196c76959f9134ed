import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { resolutionActorKind } from '../../machines/machine-versions.js';
import { expireResolution } from '../../src/application/resolution/expire-resolution.js';

// resolutions.status is the resolution actor's state: written at creation from the machine's first state and moved by
// the one step that changes it (EXPIRE). The list keeps answering the outcome the resolution was made with.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock, env: { RESOLUTION_TTL_SECONDS: '60' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });

/** The ledger row's status and the actor's state of one resolution. */
async function sides(id: string) {
  const r = await svc.service.deps.db.query('SELECT status FROM resolutions WHERE id = $1', [id]);
  const snap = await svc.service.deps.actors.getSnapshot(resolutionActorKind, id);
  return { ledger: r.rows[0]?.status as string | undefined, actor: snap?.value as string | undefined };
}

/** Waits until the durable expiry timer has moved both sides to `state` (or gives up and answers the last sides). */
async function settle(id: string, state: string) {
  let last = await sides(id);
  for (let i = 0; i < 75 && !(last.ledger === state && last.actor === state); i++) {
    await new Promise((r) => setTimeout(r, 200));
    last = await sides(id);
  }
  return last;
}

test.serial("a resolution's ledger status follows its actor through expiry; the list keeps its outcome", async (t) => {
  const o = await newOrganization(svc, `res-agree-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const resolved = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  t.is(resolved.status, 200, JSON.stringify(resolved.body));
  t.is(resolved.body.status, 'resolved');
  const zero = await o.api.post(
    '/api/v2/resolutions',
    {
      serviceId: p.service.id,
      dateRange: { from: '2026-03-03', to: '2026-03-04' },
      constraints: { languageCodes: { anyOf: ['de'] } },
    },
    idem(),
  );
  t.is(zero.status, 200, JSON.stringify(zero.body));
  t.is(zero.body.status, 'zero_results');
  const ids = [resolved.body.resolutionId as string, zero.body.resolutionId as string];
  t.deepEqual(await sides(ids[0]!), { ledger: 'resolved', actor: 'resolved' });
  t.deepEqual(await sides(ids[1]!), { ledger: 'zero_results', actor: 'zero_results' });

  // An early EXPIRE is refused by the machine's guard: nothing changes on either side.
  await expireResolution(svc.service.deps, ids[0]!);
  t.deepEqual(await sides(ids[0]!), { ledger: 'resolved', actor: 'resolved' });

  clock.advance(61_000);
  try {
    t.deepEqual(await settle(ids[0]!, 'expired'), { ledger: 'expired', actor: 'expired' });
    t.deepEqual(await settle(ids[1]!, 'expired'), { ledger: 'expired', actor: 'expired' });
    // A repeated timer is harmless.
    await expireResolution(svc.service.deps, ids[0]!);
    t.deepEqual(await sides(ids[0]!), { ledger: 'expired', actor: 'expired' });
    const list = await o.api.get('/api/v2/resolutions?limit=10');
    t.is(list.status, 200);
    const statusOf = new Map(list.body.data.map((r: { id: string; status: string }) => [r.id, r.status]));
    t.is(statusOf.get(ids[0]), 'resolved');
    t.is(statusOf.get(ids[1]), 'zero_results');
  } finally {
    clock.advance(-61_000);
  }
});
