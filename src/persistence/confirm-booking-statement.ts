import { ServiceError } from '../errors/service-error.js';
import { AUDIT_INSERT_COLUMNS, auditSelectList } from './audit-log.js';
import type { BookingRow } from './booking-repository.js';
import type { Queryable } from './database.js';
import { EVENT_API_VERSION } from './event-outbox.js';
import { answerConflict, answerInsertSql } from './idempotency-answers.js';
import { newId } from './new-id.js';
import { claimError, claimLiveSql, claimLockKey, claimLockSql, holdLapsedSql, liveOverlapSql } from './slot-claims.js';

/** The names a booking row carries, as the audit entry and the answer show them. */
export interface BookingNames {
  provider: string | null;
  service: string | null;
  duration: number | null;
}

/** The provider's and service's current names (when the resolution's copy is stale). */
export async function currentBookingNames(db: Queryable, providerId: string, serviceId: string): Promise<BookingNames> {
  const r = await db.query({
    name: 'booking-names',
    text: `SELECT p.doc->>'displayName' AS provider, s.doc->>'title' AS service, (s.doc->>'duration')::int AS duration FROM providers p, services s WHERE p.id = $1 AND s.id = $2`,
    values: [providerId, serviceId],
  });
  return (r.rows[0] as BookingNames | undefined) ?? { provider: null, service: null, duration: null };
}

/**
 * The stored answer of a confirm: the answer parameter with `provider.username` set to the provider's username when it
 * has one (`pu` is the provider's row), as confirmAnswer sets it in the answer returned.
 */
const withUsername = (param: string) =>
  `CASE WHEN pu.doc->>'username' IS NULL THEN ${param}::json
   ELSE jsonb_set(${param}::jsonb, '{provider,username}', to_jsonb(pu.doc->>'username'))::json END`;

/** A confirm's answer (the planned row's v2 shape) with the provider's username of the stored row, when it has one. */
export function confirmAnswer<A extends { provider: object }>(view: A, row: Pick<BookingRow, 'provider_username'>): A {
  return row.provider_username === null
    ? view
    : { ...view, provider: { ...view.provider, username: row.provider_username } };
}

/** What the confirm statement did: the booking, or why not. */
export interface ConfirmOutcome {
  confirmed: boolean;
  taken: boolean;
  namesCurrent: boolean;
  row: BookingRow | undefined;
  usedHoldId: string | undefined;
  /** The resolution's live holds on the option are not what the plan decided on (another request changed them). */
  holdChanged: boolean;
  /** A hold lapsed in the way (its timer has not fired yet): end it through the hold machine, then confirm again. */
  lapsed: boolean;
}

/**
 * The whole confirmation in one autocommit statement (lock order in slot-claims.ts). Without the claim lock: a
 * booking of the resolution, a live overlapping claim (other than the resolution's own hold on this option), a hold
 * lapsed in the way, live holds of the option other than the one `consumed` names, or stale names answer at once
 * with nothing written. Under the lock: the hold the hold machine decided this confirm consumes (`consumed`: its
 * final state and the consumedAt its context recorded; recorded only while still active), then the claim, the
 * booking, the resolution's booking_id, booking.confirmed and the audit entry. A claim committed after the check
 * fails the claim (23P01) and undoes the whole statement. `planned` is the row as it will be stored (the booking
 * machine's initial status and confirmedAt included), `eventData` the booking.confirmed data, `auditParams` the
 * audit entry's (auditInsertParams), `answerParams` the idempotent answer's (answerInsertParams: stored with the
 * booking, the provider's username added as confirmAnswer adds it, when a record is given; a second answer for the
 * same key is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS).
 */
export async function confirmBookingStatement(
  db: Queryable,
  p: {
    planned: BookingRow;
    names: BookingNames;
    consumed: { refId: string; state: string; endedAt: Date } | null;
    claimStart: Date;
    claimEnd: Date;
    eventData: unknown;
    auditParams: unknown[];
    answerParams: unknown[];
  },
): Promise<ConfirmOutcome> {
  const b = p.planned;
  const now = b.created_at;
  const audit = { params: p.auditParams };
  // The booking machine's initial state and confirmedAt come after the audit parameters, then the hold machine's
  // decision for the hold consumed (its final state and end time), then the idempotent answer's.
  const statusParam = 26 + audit.params.length;
  const confirmedAtParam = statusParam + 1;
  const consumedParam = statusParam + 2;
  const consumedAtParam = statusParam + 3;
  const answerParam = statusParam + 4;
  let r;
  try {
    r = await db.query({
      name: 'confirm-booking',
      text: `WITH pre AS (SELECT
         EXISTS (SELECT 1 FROM bookings WHERE resolution_id = $6) AS confirmed,
         ${liveOverlapSql('$4', '$16', '$17', '$14', `kind = 'hold' AND resolution_id = $6 AND option_id = $7`)} AS taken,
         (EXISTS (SELECT 1 FROM slot_claims WHERE kind = 'hold' AND resolution_id = $6 AND option_id = $7 AND active AND ${claimLiveSql('$14')}
             AND ref_id IS DISTINCT FROM $19::text)
           OR ($19::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM slot_claims WHERE ref_id = $19 AND kind = 'hold' AND active))) AS hold_changed,
         EXISTS (SELECT 1 FROM slot_claims WHERE provider_id = $4 AND active AND ${holdLapsedSql('$14')}
           AND during && tstzrange($16::timestamptz, $17::timestamptz)) AS lapsed,
         EXISTS (SELECT 1 FROM providers pr JOIN services sv ON sv.id = $5 WHERE pr.id = $4 AND pr.doc->>'displayName' IS NOT DISTINCT FROM $20::text
           AND sv.doc->>'title' IS NOT DISTINCT FROM $21::text AND (sv.doc->>'duration')::int IS NOT DISTINCT FROM $22::int) AS names_current),
       lk AS (SELECT ${claimLockSql('$18')} AS locked FROM pre WHERE NOT confirmed AND NOT taken AND NOT hold_changed AND NOT lapsed AND names_current),
       ended AS (
         UPDATE slot_claims c SET active = false, ended_at = $${consumedAtParam}::timestamptz, end_reason = $${consumedParam}::text, booking_id = $1
         FROM lk WHERE c.ref_id = $19::text AND c.kind = 'hold' AND c.active
         RETURNING c.ref_id),
       -- The aggregate drains "ended" first: the claim must not meet the hold this statement consumes.
       claim AS (
         INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
         SELECT $15, $3, $2, $4, 'booking', $1, $6, $7, tstzrange($16::timestamptz, $17::timestamptz), true, NULL, $13, $14::timestamptz
         FROM lk, (SELECT count(*) AS consumed FROM ended) e
         WHERE $19::text IS NULL OR e.consumed = 1
         RETURNING ref_id),
       bk AS (
         INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, option_id, source, status, start_at, end_at, timezone,
           customer, metadata, notes, confirm_token, mode, rescheduled_from, created_at, updated_at, confirmed_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, 'v2', $${statusParam}::text, $8::timestamptz, $9::timestamptz, $10, $11::jsonb, $12::jsonb, NULL, NULL, $13, NULL, $14::timestamptz, $14::timestamptz,
           $${confirmedAtParam}::timestamptz FROM claim
         RETURNING *),
       res AS (UPDATE resolutions SET booking_id = bk.id FROM bk WHERE resolutions.id = bk.resolution_id),
       ev AS (
         INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
         SELECT $24, $2, $3, 'booking.confirmed', $23, $13, $25::jsonb, $14::timestamptz FROM bk),
       au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(26)} FROM bk),
       -- The answer stored with the booking carries the provider's username as the booking's row reads it.
       idem AS (${answerInsertSql('bk LEFT JOIN providers pu ON pu.id = bk.provider_id', answerParam, withUsername)})
       SELECT pre.confirmed, pre.taken, pre.names_current, pre.hold_changed, pre.lapsed, (SELECT ref_id FROM ended) AS used_hold_id,
         bk.*, pr.doc->>'displayName' AS provider_name, pr.doc->>'username' AS provider_username,
         sv.doc->>'title' AS service_title, (sv.doc->>'duration')::int AS service_duration
       FROM pre LEFT JOIN bk ON true LEFT JOIN providers pr ON pr.id = bk.provider_id LEFT JOIN services sv ON sv.id = bk.service_id`,
      values: [
        b.id,
        b.platform_id,
        b.organization_id,
        b.provider_id,
        b.service_id,
        b.resolution_id,
        b.option_id,
        b.start_at,
        b.end_at,
        b.timezone,
        JSON.stringify(b.customer),
        b.metadata ? JSON.stringify(b.metadata) : null,
        b.mode,
        now,
        newId('clm', now.getTime()),
        p.claimStart,
        p.claimEnd,
        claimLockKey(b.provider_id),
        p.consumed?.refId ?? null,
        p.names.provider,
        p.names.service,
        p.names.duration,
        EVENT_API_VERSION,
        newId('evt', now.getTime()),
        JSON.stringify(p.eventData),
        ...audit.params,
        b.status,
        b.confirmed_at,
        p.consumed?.state ?? null,
        p.consumed?.endedAt ?? null,
        ...p.answerParams,
      ],
    });
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'bookings_one_per_resolution')
      throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
    throw answerConflict(claimError(err));
  }
  const {
    confirmed,
    taken,
    names_current: namesCurrent,
    hold_changed: holdChanged,
    lapsed,
    used_hold_id: usedHoldId,
    ...rest
  } = r.rows[0];
  return {
    confirmed,
    taken,
    namesCurrent,
    holdChanged,
    lapsed,
    usedHoldId: usedHoldId ?? undefined,
    row: rest.id ? (rest as BookingRow) : undefined,
  };
}
