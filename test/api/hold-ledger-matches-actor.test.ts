import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { holdActorKind } from '../../machines/machine-versions.js';

// The hold machine is the only writer of a hold's lifecycle: after hold, release, expiry by timer, a lapsed hold ended
// by a later claim and consumption by a confirm, the ledger row's state (slot_claims.end_reason) and end time must be
// the hold actor's own state and context.
let svc: TestService;
const clock = createTestClock('2026-03-02T12:00:00Z');
test.before(async () => {
  svc = await startTestService({ clock });
});
test.after.always(async () => {
  await svc?.stop();
});

const idem = () => ({ 'idempotency-key': randomUUID() });
const customer = { name: 'Pat Doe', email: 'pat@example.com', timezone: 'America/New_York' };

/** The ledger row and the actor of one hold, side by side. */
async function sides(holdId: string) {
  const r = await svc.service.deps.db.query(
    `SELECT active, end_reason, ended_at, booking_id, expires_at FROM slot_claims WHERE kind = 'hold' AND ref_id = $1`,
    [holdId],
  );
  const row = r.rows[0];
  const state = row.active ? 'active' : row.end_reason;
  const endedAt = row.ended_at?.toISOString() ?? null;
  const snap = await svc.service.deps.actors.getSnapshot(holdActorKind, holdId);
  return {
    ledger: {
      state,
      releasedAt: state === 'released' ? endedAt : null,
      expiredAt: state === 'expired' ? endedAt : null,
      consumedAt: state === 'consumed' ? endedAt : null,
      bookingId: row.booking_id ?? null,
      expiresAt: row.expires_at.toISOString(),
    },
    actor: snap && {
      state: String(snap.value),
      releasedAt: snap.context.releasedAt,
      expiredAt: snap.context.expiredAt,
      consumedAt: snap.context.consumedAt,
      bookingId: snap.context.bookingId,
      expiresAt: snap.context.expiresAt,
    },
  };
}

/** Asserts one hold agrees with its actor and answers its state. */
async function agree(t: ExecutionContext, holdId: string, step: string): Promise<string> {
  const { ledger, actor } = await sides(holdId);
  t.deepEqual(actor, ledger, `${step}: hold ${holdId}`);
  return ledger.state;
}

/** Waits (the durable timer mirrors after the ledger) until the ledger and the actor both reach `state`. */
async function settle(holdId: string, state: string): Promise<void> {
  for (let i = 0; i < 75; i++) {
    const { ledger, actor } = await sides(holdId);
    if (ledger.state === state && actor?.state === state) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test.serial("after each hold operation a hold's stored state and end time are its actor's state", async (t) => {
  const o = await newOrganization(svc, `hold-agree-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const resolve = async () => {
    const r = await o.api.post(
      '/api/v2/resolutions',
      { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' }, maxOptionsPerProvider: 4 },
      idem(),
    );
    t.is(r.status, 200, JSON.stringify(r.body));
    return r.body as { resolutionId: string; options: { optionId: string }[] };
  };
  const hold = async (r: { resolutionId: string }, optionId: string, ttlSeconds = 60) => {
    const h = await o.api.post(`/api/v2/resolutions/${r.resolutionId}/options/${optionId}/hold`, { ttlSeconds });
    t.is(h.status, 200, JSON.stringify(h.body));
    return h.body.holdId as string;
  };

  const r1 = await resolve();
  const h1 = await hold(r1, r1.options[0]!.optionId);
  t.is(await agree(t, h1, 'hold'), 'active');
  t.is(
    (await o.api.delete(`/api/v2/resolutions/${r1.resolutionId}/options/${r1.options[0]!.optionId}/hold`)).status,
    200,
  );
  t.is(await agree(t, h1, 'release'), 'released');
  t.is(
    (await o.api.delete(`/api/v2/resolutions/${r1.resolutionId}/options/${r1.options[0]!.optionId}/hold`)).status,
    200,
  );
  t.is(await agree(t, h1, 'release again'), 'released');

  const h2 = await hold(r1, r1.options[1]!.optionId);
  const booking = await o.api.post(
    `/api/v2/resolutions/${r1.resolutionId}/confirm`,
    { optionId: r1.options[1]!.optionId, holdId: h2, customer },
    idem(),
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  t.is(await agree(t, h2, 'consume by confirm'), 'consumed');

  try {
    // Expiry by the durable timer: the ledger ends first, then the actor mirrors; both end `expired` at expiresAt.
    const r2 = await resolve();
    const h3 = await hold(r2, r2.options[0]!.optionId, 30);
    clock.advance(31_000);
    await settle(h3, 'expired');
    t.is(await agree(t, h3, 'expiry by timer'), 'expired');

    // A lapsed hold ended by a later claim (the resolution's next hold ends it under the claim lock, whoever of the
    // claim and the timer comes first): expired at its expiry in the ledger, and the actor agrees once it mirrors.
    const r3 = await resolve();
    const h4 = await hold(r3, r3.options[0]!.optionId, 30);
    clock.advance(31_000);
    const h5 = await hold(r3, r3.options[1]!.optionId, 60);
    t.is(await agree(t, h5, 'the later claim'), 'active');
    await settle(h4, 'expired');
    t.is(await agree(t, h4, 'lapsed hold ended by a later claim'), 'expired');
  } finally {
    clock.set('2026-03-02T12:00:00Z');
  }
});
