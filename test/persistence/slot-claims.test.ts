import test from 'ava';
import { randomUUID } from 'node:crypto';
import {
  claimLockKey,
  claimSlot,
  endClaimLocked,
  claimLiveSql,
  holdLapsedSql,
  insertClaim,
  lockProviderClaims,
} from '../../src/persistence/slot-claims.js';
import { recordHoldEnds } from '../../src/persistence/hold-repository.js';
import { endLapsedHolds } from '../../src/application/booking/end-lapsed-holds.js';
import { claimBookingSlot } from '../../src/application/booking/claim-booking-slot.js';
import { holdHasLapsed } from '../../machines/hold-machine.js';
import { ServiceError } from '../../src/errors/service-error.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { newOrganization, providerWithService } from '../helpers/graph-fixtures.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.stop();
});

const at = (iso: string) => new Date(iso);

async function provider() {
  const o = await newOrganization(svc, `claims-${randomUUID().slice(0, 8)}`);
  const p = await providerWithService(o, { externalId: 'p1' });
  return {
    orgId: o.org.id as string,
    platformId: (o.org.platformId as string) ?? 'plt',
    providerId: p.provider.id as string,
  };
}

test('a lapsed hold in the way is ended through the hold machine with one option.released event; a live one is not touched', async (t) => {
  const db = svc.service.deps.db;
  const { orgId, platformId, providerId } = await provider();
  const base = {
    organizationId: orgId,
    platformId,
    providerId,
    kind: 'hold' as const,
    mode: 'test' as const,
    now: at('2026-03-02T12:00:00Z'),
  };
  await insertClaim(db, {
    ...base,
    refId: 'hld_lapsed',
    resolutionId: 'res_a',
    optionId: 'opt_a',
    start: at('2026-03-03T14:00:00Z'),
    end: at('2026-03-03T15:00:00Z'),
    expiresAt: at('2026-03-02T12:02:00Z'),
  });
  await insertClaim(db, {
    ...base,
    refId: 'hld_live',
    resolutionId: 'res_b',
    optionId: 'opt_b',
    start: at('2026-03-03T15:00:00Z'),
    end: at('2026-03-03T16:00:00Z'),
    expiresAt: at('2026-03-02T13:00:00Z'),
  });
  const overlapping = {
    ...base,
    kind: 'booking' as const,
    refId: 'bkg_new',
    start: at('2026-03-03T14:30:00Z'),
    end: at('2026-03-03T15:30:00Z'),
    now: at('2026-03-02T12:05:00Z'),
  };
  const blocked = await t.throwsAsync(() => insertClaim(db, overlapping));
  t.true(blocked instanceof ServiceError && blocked.code === 'SLOT_UNAVAILABLE', 'both holds still block until ended');

  await db.transaction(async (tx) =>
    endLapsedHolds(tx, {
      providerId,
      start: overlapping.start,
      end: overlapping.end,
      now: overlapping.now,
    }),
  );
  const claims = (
    await db.query(
      'SELECT ref_id, active, end_reason, ended_at FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id',
      [providerId],
    )
  ).rows;
  t.deepEqual(
    claims.map((c) => [c.ref_id, c.active, c.end_reason]),
    [
      ['hld_lapsed', false, 'expired'],
      ['hld_live', true, null],
    ],
  );
  t.is(claims[0].ended_at.toISOString(), '2026-03-02T12:02:00.000Z', 'a lapsed hold ended when it expired');
  const events = (
    await db.query(`SELECT id, type, mode, data FROM events WHERE organization_id = $1 AND type = 'option.released'`, [
      orgId,
    ])
  ).rows;
  t.is(events.length, 1);
  t.regex(events[0].id, /^evt_/);
  t.deepEqual(events[0].data, {
    resolutionId: 'res_a',
    optionId: 'opt_a',
    holdId: 'hld_lapsed',
    releasedAt: '2026-03-02T12:02:00.000Z',
    reason: 'expired',
  });

  // Running it again finds nothing more to end.
  await db.transaction(async (tx) =>
    endLapsedHolds(tx, {
      providerId,
      start: overlapping.start,
      end: overlapping.end,
      now: overlapping.now,
    }),
  );
  t.is(
    (
      await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'option.released'`, [
        orgId,
      ])
    ).rows[0].n,
    1,
  );
});

test('a hold end the machine decided is recorded with the booking id, and its time can then be claimed by the booking', async (t) => {
  const db = svc.service.deps.db;
  const { orgId, platformId, providerId } = await provider();
  const now = at('2026-03-02T12:00:00Z');
  const slot = { start: at('2026-03-03T14:00:00Z'), end: at('2026-03-03T15:00:00Z') };
  await insertClaim(db, {
    organizationId: orgId,
    platformId,
    providerId,
    kind: 'hold',
    refId: 'hld_1',
    resolutionId: 'res_1',
    optionId: 'opt_1',
    ...slot,
    expiresAt: at('2026-03-02T12:10:00Z'),
    now,
  });
  await db.transaction(async (tx) => {
    await recordHoldEnds(tx, [{ refId: 'hld_1', state: 'consumed', endedAt: now, bookingId: 'bkg_1' }], now);
    await insertClaim(tx, {
      organizationId: orgId,
      platformId,
      providerId,
      kind: 'booking',
      refId: 'bkg_1',
      resolutionId: 'res_1',
      optionId: 'opt_1',
      ...slot,
      now,
    });
  });
  const rows = (
    await db.query(
      'SELECT ref_id, active, end_reason, booking_id FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id',
      [providerId],
    )
  ).rows;
  t.deepEqual(
    rows.map((r) => [r.ref_id, r.active, r.end_reason, r.booking_id]),
    [
      ['bkg_1', true, null, null],
      ['hld_1', false, 'consumed', 'bkg_1'],
    ],
  );
  t.is(
    (
      await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'option.released'`, [
        orgId,
      ])
    ).rows[0].n,
    0,
    'a consumed hold is not released',
  );
});

/** A claim row of a provider, ready for insertClaim/claimSlot. */
const claimOf = (
  o: Awaited<ReturnType<typeof provider>>,
  refId: string,
  start: string,
  end: string,
  extra: Partial<Parameters<typeof insertClaim>[1]> = {},
) => ({
  organizationId: o.orgId,
  platformId: o.platformId,
  providerId: o.providerId,
  kind: 'booking' as const,
  refId: refOf(o, refId),
  start: at(start),
  end: at(end),
  now: at('2026-03-02T12:00:00Z'),
  ...extra,
});
/** Claim ids are unique over the whole table: each test's names carry its provider's id. */
const refOf = (o: { providerId: string }, name: string) => `${name}.${o.providerId}`;
/** A ref_id without its provider suffix. */
const nameOf = (refId: string) => refId.split('.')[0];

/** Holds the provider's claim lock in a session of its own until `release` is called (a winner mid-transaction). */
async function holdClaimLock(providerId: string) {
  const holder = await svc.service.deps.db.pool.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [claimLockKey(providerId)]);
  return {
    release: async () => {
      await holder.query('ROLLBACK');
      holder.release();
    },
  };
}

test("a claim on time a committed claim holds is refused without waiting for the provider's claim lock", async (t) => {
  const db = svc.service.deps.db;
  const o = await provider();
  await insertClaim(db, claimOf(o, 'bkg_winner', '2026-03-03T14:00:00Z', '2026-03-03T15:00:00Z'));
  const lock = await holdClaimLock(o.providerId);
  try {
    // Had the loser asked for the lock, it would wait for the holder, which lets go only after this answer: the
    // lock timeout turns such a wait into 55P03 instead of a hang.
    const loser = await t.throwsAsync(() =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '5s'`);
        await claimSlot(tx, claimOf(o, 'bkg_loser', '2026-03-03T14:30:00Z', '2026-03-03T15:30:00Z'));
      }),
    );
    t.true(loser instanceof ServiceError && loser.code === 'SLOT_UNAVAILABLE', String(loser));
    // A claim on free time does ask for the lock (and waits for the holder).
    const waiting = await t.throwsAsync(() =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '200ms'`);
        await claimSlot(tx, claimOf(o, 'bkg_free', '2026-03-03T16:00:00Z', '2026-03-03T17:00:00Z'));
      }),
    );
    // The lock timeout is a store bound: it reaches the caller as 503 SERVICE_UNAVAILABLE with PostgreSQL's 55P03 as cause.
    t.is((waiting as { code?: string }).code, 'SERVICE_UNAVAILABLE', String(waiting));
    t.is(
      (waiting as { cause?: { code?: string } }).cause?.code,
      '55P03',
      'lock_not_available: the free claim waited for the claim lock',
    );
  } finally {
    await lock.release();
  }
  const active = (
    await db.query('SELECT ref_id FROM slot_claims WHERE provider_id = $1 AND active ORDER BY ref_id', [o.providerId])
  ).rows.map((r) => nameOf(r.ref_id));
  t.deepEqual(active, ['bkg_winner']);
});

test('claimBookingSlot ends the claim it replaces and lapsed holds in the way, then claims and appends its audit entry', async (t) => {
  const db = svc.service.deps.db;
  const o = await provider();
  const now = at('2026-03-02T12:05:00Z');
  await insertClaim(db, claimOf(o, 'bkg_old', '2026-03-03T14:00:00Z', '2026-03-03T15:00:00Z'));
  await insertClaim(
    db,
    claimOf(o, 'hld_lapsed', '2026-03-03T15:00:00Z', '2026-03-03T15:30:00Z', {
      kind: 'hold',
      resolutionId: 'res_l',
      optionId: 'opt_l',
      expiresAt: at('2026-03-02T12:02:00Z'),
    }),
  );
  await db.transaction((tx) =>
    claimBookingSlot(tx, {
      ...claimOf(o, 'bkg_new', '2026-03-03T14:30:00Z', '2026-03-03T15:30:00Z'),
      now,
      replaces: { refId: refOf(o, 'bkg_old'), reason: 'rescheduled' },
      audit: {
        platformId: o.platformId,
        organizationId: o.orgId,
        actor: { type: 'system' },
        action: 'booking.reschedule',
        resourceType: 'booking',
        resourceId: refOf(o, 'bkg_old'),
        requestId: null,
        before: null,
        after: null,
        timestamp: now,
      },
    }),
  );
  const rows = (
    await db.query(
      'SELECT ref_id, active, end_reason, ended_at FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id',
      [o.providerId],
    )
  ).rows;
  t.deepEqual(
    rows.map((r) => [nameOf(r.ref_id), r.active, r.end_reason, r.ended_at?.toISOString() ?? null]),
    [
      ['bkg_new', true, null, null],
      ['bkg_old', false, 'rescheduled', now.toISOString()],
      ['hld_lapsed', false, 'expired', '2026-03-02T12:02:00.000Z'],
    ],
  );
  const released = (
    await db.query(`SELECT data FROM events WHERE organization_id = $1 AND type = 'option.released'`, [o.orgId])
  ).rows;
  t.deepEqual(
    released.map((e) => nameOf(e.data.holdId)),
    ['hld_lapsed'],
  );
  t.is(
    (
      await db.query(
        `SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action = 'booking.reschedule' AND resource_id = $2`,
        [o.orgId, refOf(o, 'bkg_old')],
      )
    ).rows[0].n,
    1,
  );
});

test('a refused claimSlot changes nothing: the claim it replaces and lapsed holds stay as they were', async (t) => {
  const db = svc.service.deps.db;
  const o = await provider();
  await insertClaim(db, claimOf(o, 'bkg_keep', '2026-03-03T09:00:00Z', '2026-03-03T10:00:00Z'));
  await insertClaim(db, claimOf(o, 'bkg_other', '2026-03-03T10:00:00Z', '2026-03-03T11:00:00Z'));
  const refused = await t.throwsAsync(() =>
    db.transaction((tx) =>
      claimSlot(tx, {
        ...claimOf(o, 'bkg_moved', '2026-03-03T09:30:00Z', '2026-03-03T10:30:00Z'),
        replaces: { refId: refOf(o, 'bkg_keep'), reason: 'rescheduled' },
      }),
    ),
  );
  t.true(refused instanceof ServiceError && refused.code === 'SLOT_UNAVAILABLE');
  const active = (
    await db.query('SELECT ref_id FROM slot_claims WHERE provider_id = $1 AND active ORDER BY ref_id', [o.providerId])
  ).rows.map((r) => nameOf(r.ref_id));
  t.deepEqual(active, ['bkg_keep', 'bkg_other']);
});

test('endClaimLocked ends a claim under the claim lock and appends the audit entry, also when no claim was active', async (t) => {
  const db = svc.service.deps.db;
  const o = await provider();
  await insertClaim(db, claimOf(o, 'bkg_end', '2026-03-03T09:00:00Z', '2026-03-03T10:00:00Z'));
  const now = at('2026-03-02T13:00:00Z');
  const audit = (id: string) => ({
    platformId: o.platformId,
    organizationId: o.orgId,
    actor: { type: 'system' as const },
    action: 'booking.cancel',
    resourceType: 'booking',
    resourceId: id,
    requestId: null,
    before: null,
    after: null,
    timestamp: now,
  });
  const [ended, locks] = await db.transaction(async (tx) => {
    const e = await endClaimLocked(tx, {
      providerId: o.providerId,
      refId: refOf(o, 'bkg_end'),
      reason: 'cancelled',
      now,
      audit: audit('bkg_end'),
    });
    const l = await tx.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted`,
    );
    return [e, l.rows[0].n as number];
  });
  t.true(ended);
  t.is(locks, 1, "the provider's claim lock was held");
  t.false(
    await db.transaction((tx) =>
      endClaimLocked(tx, {
        providerId: o.providerId,
        refId: refOf(o, 'bkg_none'),
        reason: 'cancelled',
        now,
        audit: audit('bkg_none'),
      }),
    ),
  );
  const row = (await db.query('SELECT active, end_reason FROM slot_claims WHERE ref_id = $1', [refOf(o, 'bkg_end')]))
    .rows[0];
  t.deepEqual([row.active, row.end_reason], [false, 'cancelled']);
  t.is(
    (
      await db.query(
        `SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action = 'booking.cancel'`,
        [o.orgId],
      )
    ).rows[0].n,
    2,
  );
});

test("lockProviderClaims takes the provider's lock and the lock of the provider of the resolution's lapsed hold", async (t) => {
  const db = svc.service.deps.db;
  const a = await provider();
  const b = await provider();
  await insertClaim(
    db,
    claimOf(b, 'hld_elsewhere', '2026-03-03T09:00:00Z', '2026-03-03T10:00:00Z', {
      kind: 'hold',
      resolutionId: 'res_x',
      optionId: 'opt_b',
      expiresAt: at('2026-03-02T12:01:00Z'),
    }),
  );
  const held = await db.transaction(async (tx) => {
    await lockProviderClaims(tx, [a.providerId, a.providerId], {
      resolutionId: 'res_x',
      now: at('2026-03-02T12:05:00Z'),
    });
    // pg_locks shows a bigint advisory key as classid (high 32 bits) and objid (low 32 bits).
    const r = await tx.query(
      `SELECT (SELECT array_agg(k ORDER BY k) FROM (SELECT (classid::bigint << 32) | objid::bigint AS k FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted) l) AS got,
         (SELECT array_agg(k ORDER BY k) FROM unnest(ARRAY[hashtext($1)::bigint, hashtext($2)::bigint]) k) AS want`,
      [claimLockKey(a.providerId), claimLockKey(b.providerId)],
    );
    return r.rows[0] as { got: string[]; want: string[] };
  });
  t.deepEqual(held.got, held.want, "both providers' claim locks, each once");
});

test('claimSlot answers `lapsed` without the claim lock and writes nothing while a lapsed hold is in the way', async (t) => {
  const db = svc.service.deps.db;
  const o = await provider();
  await insertClaim(
    db,
    claimOf(o, 'hld_late', '2026-03-03T15:00:00Z', '2026-03-03T15:30:00Z', {
      kind: 'hold',
      resolutionId: 'res_late',
      optionId: 'opt_late',
      expiresAt: at('2026-03-02T12:02:00Z'),
    }),
  );
  const lock = await holdClaimLock(o.providerId);
  try {
    const answer = await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '5s'`);
      return claimSlot(tx, {
        ...claimOf(o, 'bkg_late', '2026-03-03T15:00:00Z', '2026-03-03T16:00:00Z'),
        now: at('2026-03-02T12:05:00Z'),
      });
    });
    t.is(answer, 'lapsed');
  } finally {
    await lock.release();
  }
  const rows = (
    await db.query('SELECT ref_id, active FROM slot_claims WHERE provider_id = $1 ORDER BY ref_id', [o.providerId])
  ).rows;
  t.deepEqual(
    rows.map((r) => [nameOf(r.ref_id), r.active]),
    [['hld_late', true]],
  );
});

test("the SQL expiry predicates are the hold machine's guard, also at the boundary", async (t) => {
  const db = svc.service.deps.db;
  const expiresAt = '2026-03-02T10:02:00.000Z';
  for (const now of ['2026-03-02T10:01:59.999Z', expiresAt, '2026-03-02T10:02:00.001Z']) {
    const r = await db.query(
      `SELECT ${holdLapsedSql('$2')} AS lapsed, ${claimLiveSql('$2')} AS live FROM (SELECT 'hold'::text AS kind, $1::timestamptz AS expires_at) c`,
      [expiresAt, now],
    );
    t.is(r.rows[0].lapsed, holdHasLapsed(expiresAt, now), `lapsed at ${now}`);
    t.is(r.rows[0].live, !holdHasLapsed(expiresAt, now), `live at ${now}`);
  }
});
