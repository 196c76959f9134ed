import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import { EVENT_API_VERSION } from '../../persistence/event-outbox.js';
import { newId } from '../../persistence/new-id.js';

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

/**
 * Ends holds whose lifetime passed but whose timer has not fired yet, where they would block `[start, end)`
 * of a provider (or a new hold on `resolutionId`), and stores their `option.released` events, in one statement.
 * A late timer then finds nothing to do. `consumedHold` also ends that hold's claim as used by a booking.
 */
export async function endLapsedHolds(tx: Queryable, p: { providerId: string; start: Date; end: Date; resolutionId?: string | null; now: Date; consumedHold?: { refId: string; bookingId: string } | undefined }): Promise<void> {
  await tx.query({
    name: 'end-lapsed-holds',
    text: `WITH lapsed AS (
       UPDATE slot_claims SET active = false, ended_at = expires_at, end_reason = 'expired'
       WHERE active AND kind = 'hold' AND expires_at <= $4 AND ((provider_id = $1 AND during && tstzrange($2, $3)) OR resolution_id = $5)
       RETURNING organization_id, platform_id, ref_id, resolution_id, option_id, expires_at, mode),
     consumed AS (
       UPDATE slot_claims SET active = false, ended_at = $4, end_reason = 'consumed', booking_id = $7
       WHERE ref_id = $6 AND active AND $6::text IS NOT NULL)
     INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
     SELECT ($8::text[])[row_number() OVER ()], platform_id, organization_id, 'option.released', $9, mode,
       jsonb_build_object('resolutionId', resolution_id, 'optionId', option_id, 'holdId', ref_id,
         'releasedAt', to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'reason', 'expired'), $4
     FROM lapsed`,
    values: [p.providerId, p.start, p.end, p.now, p.resolutionId ?? null, p.consumedHold?.refId ?? null, p.consumedHold?.bookingId ?? null, eventIds(p.now), EVENT_API_VERSION],
  });
}

// Lapsed holds in the way of one claim are few (active claims never overlap); ids for up to 32 of them.
const eventIds = (now: Date) => Array.from({ length: 32 }, () => newId('evt', now.getTime()));

/** The lock key serializing claims on one provider (see insertClaim). */
export const claimLockKey = (providerId: string) => `claim:${providerId}`;

/** Maps a failed claim insert to the contract's error; anything else is passed through. */
export function claimError(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23P01') return new ServiceError('SLOT_UNAVAILABLE', 'The slot overlaps a booking or an active hold of this provider.');
  if (e.code === '23505' && e.constraint === 'slot_claims_one_active_hold') return new ServiceError('HOLD_CONFLICT');
  return err;
}

/**
 * Inserts an active claim. Overlap with another active claim of the provider is 409 SLOT_UNAVAILABLE
 * (exclusion constraint); a second active hold on the resolution is 409 HOLD_CONFLICT (unique index).
 * The error aborts the caller's transaction (callers answer it, they never continue).
 */
export async function insertClaim(tx: Queryable, c: ClaimInput): Promise<void> {
  // Concurrent inserts of overlapping claims wait on each other inside the exclusion check and can deadlock
  // (40P01, a 500 after deadlock_timeout); one claimer per provider at a time (the lock is taken first, in the
  // same statement, and held until commit) means the check only ever meets committed claims and answers 23P01 at once.
  try {
    await tx.query({
      name: 'insert-claim',
      text: `WITH lk AS (SELECT pg_advisory_xact_lock(hashtext($14)) AS locked)
       INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, tstzrange($9::timestamptz, $10::timestamptz), true, $11::timestamptz, $12, $13::timestamptz FROM lk`,
      values: [newId('clm', c.now.getTime()), c.organizationId, c.platformId, c.providerId, c.kind, c.refId, c.resolutionId ?? null, c.optionId ?? null, c.start, c.end, c.expiresAt ?? null, c.mode ?? 'test', c.now, claimLockKey(c.providerId)],
    });
  } catch (err) {
    throw claimError(err);
  }
}

/** Ends the active claim of a hold or booking; answers whether one was active. */
export async function endClaim(tx: Queryable, refId: string, reason: string, now: Date, bookingId?: string): Promise<boolean> {
  const r = await tx.query('UPDATE slot_claims SET active = false, ended_at = $2, end_reason = $3, booking_id = COALESCE($4, booking_id) WHERE ref_id = $1 AND active RETURNING 1', [refId, now, reason, bookingId ?? null]);
  return (r.rowCount ?? 0) > 0;
}
