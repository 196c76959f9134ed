import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { createTestClock } from '../helpers/test-clock.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';
import { insertClaim } from '../../src/persistence/slot-claims.js';

// A hold whose lifetime passed but whose timer has not fired yet does not block a confirm: the confirm ends it through
// the hold machine (expired at its expiry, with option.released) in the transaction that books the slot.
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

test('a confirm over a lapsed hold whose timer has not fired ends it as expired and books the slot', async (t) => {
  const db = svc.service.deps.db;
  const o = await newOrganization(svc, `lapsed-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1', languageCodes: ['en'] });
  const r = await o.api.post(
    '/api/v2/resolutions',
    { serviceId: p.service.id, dateRange: { from: '2026-03-03', to: '2026-03-04' } },
    idem(),
  );
  t.is(r.status, 200, JSON.stringify(r.body));
  const option = r.body.options[0];
  // Another resolution's hold on the same time, lapsed a minute ago; written straight to the ledger, so no timer exists.
  const holdId = `hld_lapsed_${randomUUID().slice(0, 8)}`;
  const expiresAt = new Date(clock().getTime() - 60_000);
  await insertClaim(db, {
    organizationId: o.org.id,
    platformId: o.org.platformId ?? 'plt',
    providerId: p.provider.id,
    kind: 'hold',
    refId: holdId,
    resolutionId: 'res_other',
    optionId: 'opt_other',
    start: new Date(option.slot.start),
    end: new Date(option.slot.end),
    expiresAt,
    now: new Date(expiresAt.getTime() - 120_000),
  });
  const booking = await o.api.post(
    `/api/v2/resolutions/${r.body.resolutionId}/confirm`,
    { optionId: option.optionId, customer },
    idem(),
  );
  t.is(booking.status, 200, JSON.stringify(booking.body));
  const row = (await db.query('SELECT active, end_reason, ended_at FROM slot_claims WHERE ref_id = $1', [holdId]))
    .rows[0];
  t.deepEqual([row.active, row.end_reason, row.ended_at.toISOString()], [false, 'expired', expiresAt.toISOString()]);
  const released = (
    await db.query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'option.released'`, [o.org.id])
  ).rows.map((e) => e.data);
  t.deepEqual(released, [
    {
      resolutionId: 'res_other',
      optionId: 'opt_other',
      holdId,
      releasedAt: expiresAt.toISOString(),
      reason: 'expired',
    },
  ]);
  const active = (
    await db.query(`SELECT kind, ref_id FROM slot_claims WHERE provider_id = $1 AND active`, [p.provider.id])
  ).rows;
  t.deepEqual(active, [{ kind: 'booking', ref_id: booking.body.id ?? booking.body.bookingId }]);
});
