import test from 'ava';
import { randomUUID } from 'node:crypto';
import { endLapsedHolds, insertClaim } from '../../src/application/booking/slot-claims.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => { svc = await startTestService(); });
test.after.always(async () => { await svc?.stop(); });

const at = (iso: string) => new Date(iso);

async function provider() {
  const o = await newOrganization(svc, `claims-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  return { orgId: o.org.id as string, platformId: o.org.platformId as string ?? 'plt', providerId: p.provider.id as string };
}

test('a lapsed hold in the way is ended with one option.released event; a live one is not touched', async (t) => {
  const db = svc.service.deps.db;
  const { orgId, platformId, providerId } = await provider();
  const base = { organizationId: orgId, platformId, providerId, kind: 'hold' as const, mode: 'test' as const, now: at('2026-03-02T12:00:00Z') };
  await insertClaim(db, { ...base, refId: 'hld_lapsed', resolutionId: 'res_a', optionId: 'opt_a', start: at('2026-03-03T14:00:00Z'), end: at('2026-03-03T15:00:00Z'), expiresAt: at('2026-03-02T12:02:00Z') });
  await insertClaim(db, { ...base, refId: 'hld_live', resolutionId: 'res_b', optionId: 'opt_b', start: at('2026-03-03T15:00:00Z'), end: at('2026-03-03T16:00:00Z'), expiresAt: at('2026-03-02T13:00:00Z') });
  const overlapping = { ...base, kind: 'booking' as const, refId: 'bkg_new', start: at('2026-03-03T14:30:00Z'), end: at('2026-03-03T15:30:00Z'), now: at('2026-03-02T12:05:00Z') };
  const blocked = await t.throwsAsync(() => insertClaim(db, overlapping));
  t.true(blocked instanceof ServiceError && blocked.code === 'SLOT_UNAVAILABLE', 'both holds still block until ended');

  await db.transaction(async (tx) => endLapsedHolds(tx, { providerId, start: overlapping.start, end: overlapping.end, now: overlapping.now }));
  const claims = (await db.query('SELECT ref_id, active, end_reason, ended_at FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id', [providerId])).rows;
  t.deepEqual(claims.map((c) => [c.ref_id, c.active, c.end_reason]), [['hld_lapsed', false, 'expired'], ['hld_live', true, null]]);
  t.is(claims[0].ended_at.toISOString(), '2026-03-02T12:02:00.000Z', 'a lapsed hold ended when it expired');
  const events = (await db.query(`SELECT id, type, mode, data FROM events WHERE organization_id = $1 AND type = 'option.released'`, [orgId])).rows;
  t.is(events.length, 1);
  t.regex(events[0].id, /^evt_/);
  t.deepEqual(events[0].data, { resolutionId: 'res_a', optionId: 'opt_a', holdId: 'hld_lapsed', releasedAt: '2026-03-02T12:02:00.000Z', reason: 'expired' });

  // Running it again finds nothing more to end.
  await db.transaction(async (tx) => endLapsedHolds(tx, { providerId, start: overlapping.start, end: overlapping.end, now: overlapping.now }));
  t.is((await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'option.released'`, [orgId])).rows[0].n, 1);
});

test('a consumed hold ends with the booking id, and its time can then be claimed by the booking', async (t) => {
  const db = svc.service.deps.db;
  const { orgId, platformId, providerId } = await provider();
  const now = at('2026-03-02T12:00:00Z');
  const slot = { start: at('2026-03-03T14:00:00Z'), end: at('2026-03-03T15:00:00Z') };
  await insertClaim(db, { organizationId: orgId, platformId, providerId, kind: 'hold', refId: 'hld_1', resolutionId: 'res_1', optionId: 'opt_1', ...slot, expiresAt: at('2026-03-02T12:10:00Z'), now });
  await db.transaction(async (tx) => {
    await endLapsedHolds(tx, { providerId, ...slot, now, consumedHold: { refId: 'hld_1', bookingId: 'bkg_1' } });
    await insertClaim(tx, { organizationId: orgId, platformId, providerId, kind: 'booking', refId: 'bkg_1', resolutionId: 'res_1', optionId: 'opt_1', ...slot, now });
  });
  const rows = (await db.query('SELECT ref_id, active, end_reason, booking_id FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id', [providerId])).rows;
  t.deepEqual(rows.map((r) => [r.ref_id, r.active, r.end_reason, r.booking_id]), [['bkg_1', true, null, null], ['hld_1', false, 'consumed', 'bkg_1']]);
  t.is((await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'option.released'`, [orgId])).rows[0].n, 0, 'a consumed hold is not released');
});
