import type { Interval } from '../domain/availability/busy-intervals.js';
import { ServiceError } from '../errors/service-error.js';
import { AUDIT_INSERT_COLUMNS, auditInsertParams, auditSelectList, type AuditEntry } from './audit-log.js';
import type { Queryable } from './database.js';
import { newId } from './new-id.js';

/*
 * LOCK ORDER of every transaction that claims, ends or books (slot_claims and bookings), in this order only:
 *   1. the bookings row it changes, `FOR UPDATE` (cancel, complete, reschedule, confirmation link): one row, first;
 *   2. the claim lock of each provider whose slot_claims rows it inserts or changes:
 *      `pg_advisory_xact_lock(hashtext('claim:' || providerId))`, several in ascending order of that number
 *      (lockProviderClaims; only a hold that ends its resolution's lapsed hold on another provider takes two);
 *   3. then claim rows (claims ended, each only while still active) and inserts (claims, bookings, events, e-mail);
 *   4. the audit event last (a plain insert since migration 0007: it takes no lock of its own).
 * Why no wait-for cycle can form:
 *   - every write to a provider's slot_claims rows holds that provider's claim lock (2 before 3), so the exclusion
 *     check of a claim insert never meets another transaction's uncommitted row: it answers 23P01 at once and never
 *     waits. (Issue 11's deadlock was that wait: a hold held the lock and waited in the check for a confirm's ended,
 *     uncommitted hold, while the confirm waited for the lock. Ending claims before the lock is what this order forbids.)
 *   - for the same reason no transaction waits for a claim row lock held by another (both would hold the same lock);
 *   - claim locks are taken in one global order, and bookings rows before any claim lock, at most one per transaction;
 *   - the remaining waits are unique-index checks of one resolution (one booking, one active hold): a confirm waits
 *     only on another confirm of that resolution at its booking insert, a hold only on a writer of that resolution's
 *     active hold; neither waits on anything the waiter holds (a confirm never inserts an active hold, a hold never
 *     inserts a booking, and both are past their lock acquisition);
 *   - the audit event is written last and takes no lock (the hash chain is linked after commit by the sequencer).
 * Holds are read without a row lock; release and expiry end one under the claim lock only while it is still active
 * and decide again otherwise. The confirmation link changes only its booking row (step 1) and its audit event: it
 * touches no claim and needs no claim lock. A deadlock or serialization failure that still happens is re-run by
 * `Database` (40P01/40001) and, if it persists, answers 503, never 500.
 *
 * LOSERS DO NOT QUEUE. Every claiming statement first checks, without any lock, for a committed active claim that
 * overlaps and that it would not end itself (its own hold, the booking it replaces); if there is one it
 * answers 409 without requesting the claim lock, so the losers of a contended slot do not wait in line behind the
 * winner's transaction. The check only reads committed rows: a claim committed after it is still caught by the
 * exclusion constraint (the arbiter) once the lock is held. The hot paths (hold, confirm) are single autocommit
 * statements, so the lock is held for the rest of one statement and released by PostgreSQL without a client round
 * trip (release and hold expiry likewise); multi-statement transactions (v1 create, reschedule, cancel, complete) take
 * the lock in their last statement before COMMIT.
 *
 * LAPSED HOLDS IN THE WAY (past expiresAt, timer not fired yet) are ended by the hold machine, not by SQL: a claiming
 * statement that finds one (holdLapsedSql) writes nothing and answers `lapsed`; the caller then takes the claim
 * locks, loads those holds FOR UPDATE, ends each as the machine's EXPIRE decides (endLapsedHolds, recordHoldEnds) and
 * runs the statement again in the same transaction (lock order 2 then 3). Rare: timers normally end holds first.
 */

/**
 * SQL: the hold claim row `alias` has lapsed at `now` (an SQL timestamptz expression). The hold machine's expiry guard
 * (holdHasLapsed in machines/hold-machine.ts: at >= expiresAt) is the rule; this is its one SQL form, which statements
 * need only to find holds a claim may end (they are then ended through the machine) and to leave lapsed holds out
 * of busy time and overlap checks. No statement compares expires_at otherwise.
 */
export const holdLapsedSql = (now: string, alias = ''): string =>
  `(${alias}kind = 'hold' AND ${alias}expires_at <= ${now}::timestamptz)`;

/** SQL: the active claim row `alias` is live at `now`: a booking, or a hold that has not lapsed (see holdLapsedSql). */
export const claimLiveSql = (now: string, alias = ''): string =>
  `(${alias}expires_at IS NULL OR ${alias}expires_at > ${now}::timestamptz)`;

/** A claim on a provider's time; the exclusion constraint on slot_claims keeps active claims from overlapping. */
export interface ClaimInput {
  organizationId: string;
  platformId: string;
  providerId: string;
  kind: 'hold' | 'booking';
  refId: string;
  resolutionId?: string | null;
  optionId?: string | null;
  start: Date;
  end: Date;
  expiresAt?: Date | null;
  /** Mode of the key that made the claim (decides the side effects of its later events). */
  mode?: 'live' | 'test';
  now: Date;
}

/** The lock key serializing claims on one provider (lock order step 2). */
export const claimLockKey = (providerId: string) => `claim:${providerId}`;

/** SQL taking the claim lock of the provider whose key is `$key` (lock order step 2). */
export const claimLockSql = (key: string) => `pg_advisory_xact_lock(hashtext(${key}))`;

/**
 * SQL: whether a committed active claim of provider `p` overlaps `[s, e)`, not counting holds lapsed at `now` (the
 * claimer ends them) nor the claims `except` names (an SQL condition on slot_claims columns, e.g. the claim replaced).
 */
export function liveOverlapSql(p: string, s: string, e: string, now: string, except?: string): string {
  return `EXISTS (SELECT 1 FROM slot_claims WHERE provider_id = ${p} AND active AND during && tstzrange(${s}::timestamptz, ${e}::timestamptz)
    AND NOT ${holdLapsedSql(now)}${except ? ` AND NOT coalesce((${except}), false)` : ''})`;
}

/**
 * Takes the claim locks of `providerIds` in the lock order (ascending lock number, each once). `lapsedHoldOf` adds the
 * provider of that resolution's active hold lapsed at `now`, read in the same statement (lapsed is final: the set
 * can only shrink while the statement waits).
 */
export async function lockProviderClaims(
  tx: Queryable,
  providerIds: readonly string[],
  lapsedHoldOf?: { resolutionId: string; now: Date },
): Promise<void> {
  await tx.query({
    name: 'lock-provider-claims',
    text: `SELECT count(pg_advisory_xact_lock(k)) FROM (
       SELECT DISTINCT hashtext('claim:' || p)::bigint AS k FROM (
         SELECT unnest($1::text[]) AS p
         UNION ALL SELECT provider_id FROM slot_claims WHERE resolution_id = $2 AND active AND ${holdLapsedSql('$3')}) ids
       ORDER BY k) ordered`,
    values: [providerIds, lapsedHoldOf?.resolutionId ?? null, lapsedHoldOf?.now ?? null],
  });
}

/** Maps a failed claim insert to the contract's error; anything else is passed through. */
export function claimError(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23P01')
    return new ServiceError('SLOT_UNAVAILABLE', 'The slot overlaps a booking or an active hold of this provider.');
  if (e.code === '23505' && e.constraint === 'slot_claims_one_active_hold') return new ServiceError('HOLD_CONFLICT');
  return err;
}

/** The 409 of a slot another claim holds. */
export const slotUnavailable = () =>
  new ServiceError('SLOT_UNAVAILABLE', 'The slot overlaps a booking or an active hold of this provider.');

/** Parameters $1..$14 of a claim insert: the claim row's columns, then the provider's claim lock key. */
function claimParams(c: ClaimInput): unknown[] {
  return [
    newId('clm', c.now.getTime()),
    c.organizationId,
    c.platformId,
    c.providerId,
    c.kind,
    c.refId,
    c.resolutionId ?? null,
    c.optionId ?? null,
    c.start,
    c.end,
    c.expiresAt ?? null,
    c.mode ?? 'test',
    c.now,
    claimLockKey(c.providerId),
  ];
}

/**
 * Inserts an active claim under the provider's claim lock (taken first, in the same statement), nothing else.
 * Overlap with another active claim of the provider is 409 SLOT_UNAVAILABLE (exclusion constraint); a second active
 * hold on the resolution is 409 HOLD_CONFLICT (unique index). The error aborts the caller's transaction.
 */
export async function insertClaim(tx: Queryable, c: ClaimInput): Promise<void> {
  try {
    await tx.query({
      name: 'insert-claim',
      text: `WITH lk AS (SELECT ${claimLockSql('$14')} AS locked)
       INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, tstzrange($9::timestamptz, $10::timestamptz), true, $11::timestamptz, $12, $13::timestamptz FROM lk`,
      values: claimParams(c),
    });
  } catch (err) {
    throw claimError(err);
  }
}

/**
 * Claims `[start, end)` for a booking in one statement, meant as the last one of its transaction before COMMIT:
 * without any lock, a committed live overlap answers 409 SLOT_UNAVAILABLE at once, and a hold lapsed in the way
 * (its timer has not fired yet) answers `lapsed` with nothing written: the caller ends it through the hold machine
 * under the claim lock (endLapsedHolds) and claims again. Otherwise, under the provider's claim lock, it ends the
 * claim `replaces` names (a rescheduled booking: moving within its own time is allowed), inserts the claim and
 * appends `audit`.
 */
export async function claimSlot(
  tx: Queryable,
  c: ClaimInput & { replaces?: { refId: string; reason: string }; audit?: AuditEntry },
): Promise<'claimed' | 'lapsed'> {
  const audit = c.audit ? auditInsertParams(c.audit) : undefined;
  const values: unknown[] = [
    ...claimParams(c),
    c.replaces?.refId ?? null,
    c.replaces?.reason ?? null,
    ...(audit?.params ?? []),
  ];
  let r;
  try {
    r = await tx.query({
      name: audit ? 'claim-slot-audited' : 'claim-slot',
      text: `WITH pre AS (SELECT ${liveOverlapSql('$4', '$9', '$10', '$13', 'ref_id = $15::text')} AS taken,
         EXISTS (SELECT 1 FROM slot_claims WHERE provider_id = $4 AND active AND ${holdLapsedSql('$13')}
           AND during && tstzrange($9::timestamptz, $10::timestamptz)) AS lapsed),
       lk AS (SELECT ${claimLockSql('$14')} AS locked FROM pre WHERE NOT taken AND NOT lapsed),
       ended AS (
         UPDATE slot_claims c SET active = false, ended_at = $13::timestamptz, end_reason = $16::text
         FROM lk WHERE c.active AND c.ref_id = $15::text
         RETURNING c.ref_id),
       -- count(*) drains "ended" first: the claim must not meet the claim this statement ends.
       claim AS (
         INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, tstzrange($9::timestamptz, $10::timestamptz), true, $11::timestamptz, $12, $13::timestamptz
         FROM lk, (SELECT count(*) FROM ended) e
         RETURNING ref_id)${
           audit
             ? `,
       au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(17)} FROM claim)`
             : ''
         }
       SELECT (SELECT taken FROM pre) AS taken, (SELECT lapsed FROM pre) AS lapsed, (SELECT count(*) FROM claim)::int AS claimed`,
      values,
    });
  } catch (err) {
    throw claimError(err);
  }
  const row = r.rows[0];
  if (row.taken) throw slotUnavailable();
  if (row.lapsed) return 'lapsed';
  if (row.claimed !== 1) throw slotUnavailable();
  return 'claimed';
}

/**
 * Ends the active claim of a booking under its provider's claim lock and appends `audit` after it, in one statement
 * (cancel, complete: the booking row is locked first, lock order step 1). Answers whether a claim was active.
 */
export async function endClaimLocked(
  tx: Queryable,
  p: { providerId: string; refId: string; reason: string; now: Date; audit?: AuditEntry },
): Promise<boolean> {
  const audit = p.audit ? auditInsertParams(p.audit) : undefined;
  const r = await tx.query({
    name: audit ? 'end-claim-locked-audited' : 'end-claim-locked',
    text: `WITH lk AS (SELECT ${claimLockSql('$4')} AS locked),
     ended AS (UPDATE slot_claims SET active = false, ended_at = $2, end_reason = $3 FROM lk WHERE ref_id = $1 AND active RETURNING 1)${
       audit
         ? `,
     au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(5)} FROM lk, (SELECT count(*) FROM ended) e)`
         : ''
     }
     SELECT (SELECT count(*) FROM ended)::int AS ended`,
    values: [p.refId, p.now, p.reason, claimLockKey(p.providerId), ...(audit?.params ?? [])],
  });
  return r.rows[0].ended > 0;
}

/** Active claims of a provider overlapping `[from, to)`: pending/confirmed bookings and unexpired holds, buffers included. */
export async function providerBusy(
  db: Queryable,
  providerId: string,
  from: Date,
  to: Date,
  now: Date,
): Promise<Interval[]> {
  const r = await db.query(
    `SELECT lower(during) AS s, upper(during) AS e FROM slot_claims
     WHERE provider_id = $1 AND active AND during && tstzrange($2, $3) AND ${claimLiveSql('$4')}`,
    [providerId, from, to, now],
  );
  return r.rows.map((row) => ({ start: (row.s as Date).getTime(), end: (row.e as Date).getTime() }));
}
