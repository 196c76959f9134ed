import { AUDIT_INSERT_COLUMNS, auditInsertParams, auditSelectList, type AuditEntry } from './audit-log.js';
import type { Queryable } from './database.js';
import { EVENT_API_VERSION } from './event-outbox.js';
import { answerConflict, answerInsertSql } from './idempotency-answers.js';
import { newId } from './new-id.js';
import { claimError, claimLiveSql, claimLockKey, claimLockSql, holdLapsedSql, liveOverlapSql } from './slot-claims.js';

/** A hold's ledger row (a slot_claims row of kind 'hold'). */
export interface HoldRow {
  ref_id: string;
  organization_id: string;
  platform_id: string;
  provider_id: string;
  resolution_id: string;
  option_id: string;
  active: boolean;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
  booking_id: string | null;
  mode: 'live' | 'test';
  created_at: Date;
}

const HOLD_COLUMNS =
  'ref_id, organization_id, platform_id, provider_id, resolution_id, option_id, active, expires_at, ended_at, end_reason, booking_id, mode, created_at';

// Holds are read without a row lock: a change is then made under the provider's claim lock, conditioned on the
// hold being still active (lock order, slot-claims.ts), and decided again if another request changed it first.

/** The latest hold of an option, or undefined. */
export async function latestHold(db: Queryable, resolutionId: string, optionId: string): Promise<HoldRow | undefined> {
  const r = await db.query({
    name: 'latest-hold',
    text: `SELECT ${HOLD_COLUMNS} FROM slot_claims WHERE kind = 'hold' AND resolution_id = $1 AND option_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
    values: [resolutionId, optionId],
  });
  return r.rows[0] as HoldRow | undefined;
}

/** A hold by id, or undefined. */
export async function holdById(db: Queryable, holdId: string): Promise<HoldRow | undefined> {
  const r = await db.query({
    name: 'hold-by-id',
    text: `SELECT ${HOLD_COLUMNS} FROM slot_claims WHERE kind = 'hold' AND ref_id = $1`,
    values: [holdId],
  });
  return r.rows[0] as HoldRow | undefined;
}

/** What the hold statement found: the claim made, or why not (checked without the claim lock). */
export interface HoldClaimOutcome {
  claimed: boolean;
  /** The resolution already has a booking. */
  confirmed: boolean;
  /** The resolution has a live active hold. */
  held: boolean;
  /** A live claim of the provider overlaps the slot. */
  taken: boolean;
  /** A hold past its lifetime (timer not fired yet) is in the way: end it under the claim locks, then claim. */
  lapsed: boolean;
}

/**
 * Claims a hold in one statement (lock order in slot-claims.ts): a booked resolution, a live hold of the resolution,
 * a live overlapping claim or a lapsed hold in the way answers at once without the claim lock (losers do not queue);
 * otherwise the lock, the claim, its option.held event (`eventData`), its audit entry (`auditParams`, from
 * auditInsertParams, made once for all attempts) and its idempotent answer (`answerParams`, from answerInsertParams:
 * stored only with a record). A live claim committed after the check fails on the constraints (23P01
 * SLOT_UNAVAILABLE, 23505 HOLD_CONFLICT; a second answer for one key: IDEMPOTENCY_REQUEST_IN_PROGRESS).
 */
export async function claimHoldStatement(
  db: Queryable,
  h: {
    holdId: string;
    organizationId: string;
    platformId: string;
    providerId: string;
    resolutionId: string;
    optionId: string;
    start: Date;
    end: Date;
    expiresAt: Date;
    mode: 'live' | 'test';
    now: Date;
    eventData: unknown;
    auditParams: unknown[];
    answerParams: unknown[];
  },
): Promise<HoldClaimOutcome> {
  const answerParam = 17 + h.auditParams.length;
  let r;
  try {
    r = await db.query({
      name: 'claim-hold',
      text: `WITH pre AS (SELECT
         EXISTS (SELECT 1 FROM bookings WHERE resolution_id = $6) AS confirmed,
         EXISTS (SELECT 1 FROM slot_claims WHERE resolution_id = $6 AND active AND kind = 'hold' AND ${claimLiveSql('$12')}) AS held,
         ${liveOverlapSql('$4', '$8', '$9', '$12')} AS taken,
         EXISTS (SELECT 1 FROM slot_claims WHERE active AND ${holdLapsedSql('$12')}
           AND ((provider_id = $4 AND during && tstzrange($8::timestamptz, $9::timestamptz)) OR resolution_id = $6)) AS lapsed),
       lk AS (SELECT ${claimLockSql('$14')} AS locked FROM pre WHERE NOT (confirmed OR held OR taken OR lapsed)),
       claim AS (
         INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
         SELECT $1, $2, $3, $4, 'hold', $5, $6, $7, tstzrange($8::timestamptz, $9::timestamptz), true, $10::timestamptz, $11, $12::timestamptz FROM lk
         WHERE NOT EXISTS (SELECT 1 FROM bookings WHERE resolution_id = $6)
         RETURNING ref_id),
       ev AS (
         INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
         SELECT $13, $3, $2, 'option.held', $15, $11, $16::jsonb, $12::timestamptz FROM claim),
       au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(17)} FROM claim),
       idem AS (${answerInsertSql('claim', answerParam)})
       SELECT pre.*, (SELECT count(*) FROM claim)::int = 1 AS claimed FROM pre`,
      values: [
        newId('clm', h.now.getTime()),
        h.organizationId,
        h.platformId,
        h.providerId,
        h.holdId,
        h.resolutionId,
        h.optionId,
        h.start,
        h.end,
        h.expiresAt,
        h.mode,
        h.now,
        newId('evt', h.now.getTime()),
        claimLockKey(h.providerId),
        EVENT_API_VERSION,
        JSON.stringify(h.eventData),
        ...h.auditParams,
        ...h.answerParams,
      ],
    });
  } catch (err) {
    throw answerConflict(claimError(err));
  }
  return r.rows[0] as HoldClaimOutcome;
}

/**
 * Ends an active hold's claim under its provider's claim lock, with its option.released event and (for a release)
 * its audit entry, in one autocommit statement. Stores the hold machine's next state (`end`) and the end time its
 * context recorded. Answers the ended row, or undefined when the hold was no longer active (another request or the
 * timer ended it first).
 */
export async function endHold(
  db: Queryable,
  hold: HoldRow,
  p: {
    end: { state: 'released' | 'expired'; endedAt: Date };
    now: Date;
    event: { platformId: string; organizationId: string; mode: 'live' | 'test'; data: unknown };
    audit?: AuditEntry;
  },
): Promise<HoldRow | undefined> {
  const audit = p.audit ? auditInsertParams(p.audit) : undefined;
  const r = await db.query({
    name: audit ? 'end-hold-audited' : 'end-hold',
    text: `WITH lk AS (SELECT ${claimLockSql('$4')} AS locked),
     ended AS (
       UPDATE slot_claims SET active = false, ended_at = $11::timestamptz, end_reason = $3::text
       FROM lk WHERE ref_id = $1 AND active
       RETURNING ${HOLD_COLUMNS.split(', ')
         .map((c) => `slot_claims.${c}`)
         .join(', ')}),
     ev AS (
       INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
       SELECT $5, $6, $7, 'option.released', $8, $9, $10::jsonb, $2::timestamptz FROM ended)${
         audit
           ? `,
     au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(12)} FROM ended)`
           : ''
       }
     SELECT * FROM ended`,
    values: [
      hold.ref_id,
      p.now,
      p.end.state,
      claimLockKey(hold.provider_id),
      newId('evt', p.now.getTime()),
      p.event.platformId,
      p.event.organizationId,
      EVENT_API_VERSION,
      p.event.mode,
      JSON.stringify(p.event.data),
      p.end.endedAt,
      ...(audit?.params ?? []),
    ],
  });
  return r.rows[0] as HoldRow | undefined;
}

/**
 * The holds lapsed at `now` (their timer has not fired yet) that block `[start, end)` of a provider or a new hold on
 * `resolutionId`, locked FOR UPDATE. The caller holds the claim locks of the providers concerned (lockProviderClaims)
 * and ends them through the hold machine (recordHoldEnds).
 */
export async function lapsedHoldsInTheWay(
  tx: Queryable,
  p: { providerId: string; start: Date; end: Date; resolutionId?: string | null; now: Date },
): Promise<HoldRow[]> {
  const r = await tx.query({
    name: 'lapsed-holds-in-the-way',
    text: `SELECT ${HOLD_COLUMNS} FROM slot_claims
      WHERE active AND ${holdLapsedSql('$4')} AND ((provider_id = $1 AND during && tstzrange($2::timestamptz, $3::timestamptz)) OR resolution_id = $5)
      ORDER BY id FOR UPDATE`,
    values: [p.providerId, p.start, p.end, p.now, p.resolutionId ?? null],
  });
  return r.rows as HoldRow[];
}

/** One hold ending as the hold machine decided it: its final state, the end time its context recorded, its event. */
export interface HoldEndRecord {
  refId: string;
  state: 'released' | 'expired' | 'consumed';
  endedAt: Date;
  bookingId: string | null;
  /** The option.released event stored with the end, if any. */
  event?: { platformId: string; organizationId: string; mode: 'live' | 'test'; data: unknown } | undefined;
}

/**
 * Records hold endings the hold machine decided (each only while the hold is still active) and their events, in one
 * statement; the caller holds the claim locks of the holds' providers. Answers the ids of the holds ended.
 */
export async function recordHoldEnds(tx: Queryable, ends: readonly HoldEndRecord[], now: Date): Promise<string[]> {
  if (ends.length === 0) return [];
  const rows = ends.map((e) => ({
    ref_id: e.refId,
    end_reason: e.state,
    ended_at: e.endedAt.toISOString(),
    booking_id: e.bookingId,
    event: e.event ? { id: newId('evt', now.getTime()), ...e.event } : null,
  }));
  const r = await tx.query({
    name: 'record-hold-ends',
    text: `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ref_id text, end_reason text, ended_at timestamptz, booking_id text, event jsonb)),
     ended AS (
       UPDATE slot_claims c SET active = false, ended_at = x.ended_at, end_reason = x.end_reason, booking_id = coalesce(x.booking_id, c.booking_id)
       FROM x WHERE c.ref_id = x.ref_id AND c.kind = 'hold' AND c.active
       RETURNING c.ref_id),
     ev AS (
       INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
       SELECT x.event->>'id', x.event->>'platformId', x.event->>'organizationId', 'option.released', $2, x.event->>'mode', x.event->'data', $3::timestamptz
       FROM x JOIN ended ON ended.ref_id = x.ref_id WHERE x.event IS NOT NULL)
     SELECT ref_id FROM ended`,
    values: [JSON.stringify(rows), EVENT_API_VERSION, now],
  });
  return r.rows.map((row) => row.ref_id as string);
}
