import { ServiceError } from '../../errors/service-error.js';
import { holdActorKind, resolutionActorKind } from '../../../machines/machine-versions.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { AUDIT_INSERT_COLUMNS, auditInsertParams, auditSelectList } from '../../persistence/audit-log.js';
import type { Queryable } from '../../persistence/database.js';
import { EVENT_API_VERSION } from '../../persistence/event-outbox.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { initialBookingStatus } from './booking-state.js';
import { toBookingV2 } from './booking-views.js';
import { bookingEventData } from '../event-data.js';
import { callerAuditEntry } from './caller-audit-entry.js';
import { holdById } from './hold-flows.js';
import { BULK_HOLD_ENDS, holdStep, type HoldRow } from './hold-state.js';
import { claimError, claimLockKey, claimLockSql, lapsedEventIds, liveOverlapSql, releasedEventsSql, slotUnavailable } from './slot-claims.js';
import { syncBookingActor } from './sync-booking-actor.js';

/** A validated confirm body. */
export interface ConfirmInput {
  optionId: string;
  holdId?: string | undefined;
  customer: { name: string; email: string; lastname?: string | undefined; timezone?: string | undefined };
  metadata?: Record<string, unknown> | undefined;
}

/** Checks a hold against the option being confirmed (CONTRACT part 5) with the hold machine. */
function checkHold(hold: HoldRow | undefined, organizationId: string, resolutionId: string, optionId: string, bookingId: string, at: string, explicit: boolean): HoldRow | undefined {
  // Another organization's hold is 403 like every foreign id in a body (CONTRACT part 2), not "not found".
  if (hold && hold.organization_id !== organizationId) throw new ServiceError('FORBIDDEN', 'This hold belongs to another organization.', { field: 'holdId' });
  if (!hold || hold.resolution_id !== resolutionId) {
    if (explicit) throw new ServiceError('HOLD_NOT_FOUND', undefined, { field: 'holdId' });
    return undefined;
  }
  if (hold.option_id !== optionId) throw new ServiceError('HOLD_MISMATCH', undefined, { field: 'holdId' });
  const step = holdStep(hold, { type: 'CONFIRM', bookingId, at });
  if (step.value === 'expired') throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${hold.expires_at.toISOString()}.`, { field: 'holdId' });
  if (step.value === 'released') throw new ServiceError('HOLD_RELEASED', undefined, { field: 'holdId' });
  if (step.value === 'consumed' && !step.changed) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  return hold;
}

/** The names a booking row carries, as the audit entry and the answer show them. */
interface BookingNames { provider: string | null; service: string | null; duration: number | null }

/** The provider's and service's current names (when the resolution's copy is stale). */
async function currentNames(db: Queryable, providerId: string, serviceId: string): Promise<BookingNames> {
  const r = await db.query({
    name: 'booking-names',
    text: `SELECT p.doc->>'displayName' AS provider, s.doc->>'title' AS service, (s.doc->>'duration')::int AS duration FROM providers p, services s WHERE p.id = $1 AND s.id = $2`,
    values: [providerId, serviceId],
  });
  return (r.rows[0] as BookingNames | undefined) ?? { provider: null, service: null, duration: null };
}

/** How often a confirm is tried when the hold or the names changed between its reads and its statement. */
const CONFIRM_ATTEMPTS = 3;

/**
 * Confirms an option into a booking (SPEC 4.1 confirm). The ledger statement is the arbiter: the booking's
 * claim goes through the exclusion constraint (409 SLOT_UNAVAILABLE), one booking per resolution through a
 * unique index (409 RESOLUTION_ALREADY_CONFIRMED), and the hold used, if any, is consumed. The booking,
 * hold and resolution actors mirror the result afterwards.
 */
export async function confirmResolution(deps: ResolutionDeps, caller: Caller, resolutionId: string, input: ConfirmInput) {
  const { record, bookingId: already } = await accessResolution(deps, caller, resolutionId);
  if (already) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  const option = record.options.find((o) => o.optionId === input.optionId);
  if (!option) throw new ServiceError('OPTION_NOT_FOUND', undefined, { field: 'optionId' });
  const now = deps.clock();
  const at = now.toISOString();
  const bookingId = newId('bkg', now.getTime());
  // An explicit hold is checked first (its errors come before any slot question); the statement consumes it only
  // while it is still active. Without a holdId, the resolution's own live hold on this option is used, if any.
  const checkExplicit = async () => { if (input.holdId) checkHold(await holdById(deps.db, input.holdId), caller.organizationId, resolutionId, input.optionId, bookingId, at, true); };
  await checkExplicit();
  const shown = (record.response.options as { optionId: string; provider?: { displayName?: string }; service?: { displayName?: string; durationMinutes?: number } }[] | undefined)
    ?.find((o) => o.optionId === input.optionId);
  let names: BookingNames = { provider: shown?.provider?.displayName ?? null, service: shown?.service?.displayName ?? null, duration: shown?.service?.durationMinutes ?? null };
  const customer = { name: input.customer.name, email: input.customer.email, timezone: input.customer.timezone ?? null, lastname: input.customer.lastname ?? null };
  const start = new Date(option.start);
  const end = new Date(option.end);
  const status = initialBookingStatus({ id: bookingId, organization_id: caller.organizationId, source: 'v2', start_at: start, end_at: end, created_at: now, rescheduled_from: null });
  for (let attempt = 1; ; attempt++) {
    if (attempt > CONFIRM_ATTEMPTS) throw new ServiceError('SERVICE_UNAVAILABLE', 'The hold or the provider kept changing while the option was being confirmed; retry.', { retryAfter: 1 });
    // The row as it will be stored: its event and audit entry are written by the same statement.
    const planned: BookingRow = {
      id: bookingId, platform_id: caller.platformId, organization_id: caller.organizationId, provider_id: option.providerId, service_id: option.serviceId,
      resolution_id: resolutionId, option_id: option.optionId, source: 'v2', status, start_at: start, end_at: end,
      timezone: option.timezone, customer, metadata: input.metadata ?? null, notes: null, confirm_token: null, mode: caller.mode, rescheduled_from: null,
      rescheduled_to: null, cancelled_at: null, cancel_reason: null, created_at: now, updated_at: now,
      provider_name: names.provider ?? '', provider_username: null, service_title: names.service ?? '', service_duration: names.duration ?? 0,
    };
    const outcome = await confirmStatement(deps.db, { caller, planned, names, holdId: input.holdId ?? null, claimStart: new Date(option.claimStart), claimEnd: new Date(option.claimEnd) });
    if (outcome.confirmed) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
    if (outcome.taken) throw slotUnavailable();
    if (outcome.row) {
      const { row, usedHoldId } = outcome;
      await Promise.all([
        syncBookingActor(deps, row, undefined, { causedBy: stepCause(caller) }),
        usedHoldId ? deps.actors.send(holdActorKind, usedHoldId, { type: 'CONFIRM', bookingId, at }, { causedBy: stepCause(caller) }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; }) : undefined,
        deps.actors.send(resolutionActorKind, resolutionId, { type: 'CONFIRMED', bookingId, ...(usedHoldId ? { holdId: usedHoldId } : {}), at }, {
          causedBy: stepCause(caller),
          onTransition: (_b, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
        }),
      ]);
      return toBookingV2(row);
    }
    // Nothing written: the resolution's copy of the names is stale, or the explicit hold changed meanwhile.
    if (!outcome.namesCurrent) names = await currentNames(deps.db, option.providerId, option.serviceId);
    await checkExplicit();
  }
}

/** What the confirm statement did: the booking, or why not. */
interface ConfirmOutcome { confirmed: boolean; taken: boolean; namesCurrent: boolean; row: BookingRow | undefined; usedHoldId: string | undefined }

/**
 * The whole confirmation in one autocommit statement (lock order in slot-claims.ts). Without the claim lock: a
 * booking of the resolution, a live overlapping claim (other than the resolution's own hold on this option), a changed
 * explicit hold or stale names answer at once. Under the lock: the hold used is consumed and lapsed holds in the way
 * end (their option.released events), then the claim, the booking, the resolution's booking_id, booking.confirmed
 * and the audit entry. A claim committed after the check fails the claim (23P01) and undoes the whole statement.
 */
async function confirmStatement(db: Queryable, p: { caller: Caller; planned: BookingRow; names: BookingNames; holdId: string | null; claimStart: Date; claimEnd: Date }): Promise<ConfirmOutcome> {
  const b = p.planned;
  const now = b.created_at;
  const audit = auditInsertParams(callerAuditEntry(p.caller, now, { action: 'booking.create', resourceType: 'booking', resourceId: b.id, after: toBookingV2(b) }));
  // The booking machine's initial state comes after the audit parameters, then the hold machine's states for the hold
  // consumed (a live hold, ended at the confirm) and for lapsed holds in the way (ended at their expiry): BULK_HOLD_ENDS.
  const statusParam = 27 + audit.params.length;
  const consumedParam = statusParam + 1;
  const lapsedParam = statusParam + 2;
  let r;
  try {
    r = await db.query({
      name: 'confirm-booking',
      text: `WITH pre AS (SELECT
         EXISTS (SELECT 1 FROM bookings WHERE resolution_id = $6) AS confirmed,
         ${liveOverlapSql('$4', '$16', '$17', '$14', `kind = 'hold' AND resolution_id = $6 AND option_id = $7`)} AS taken,
         ($19::text IS NULL OR EXISTS (SELECT 1 FROM slot_claims WHERE ref_id = $19 AND active AND expires_at > $14::timestamptz)) AS hold_live,
         EXISTS (SELECT 1 FROM providers pr JOIN services sv ON sv.id = $5 WHERE pr.id = $4 AND pr.doc->>'displayName' IS NOT DISTINCT FROM $20::text
           AND sv.doc->>'title' IS NOT DISTINCT FROM $21::text AND (sv.doc->>'duration')::int IS NOT DISTINCT FROM $22::int) AS names_current),
       lk AS (SELECT ${claimLockSql('$18')} AS locked FROM pre WHERE NOT confirmed AND NOT taken AND hold_live AND names_current),
       ended AS (
         UPDATE slot_claims c SET active = false,
           ended_at = CASE WHEN c.expires_at > $14::timestamptz THEN $14::timestamptz ELSE c.expires_at END,
           end_reason = CASE WHEN c.expires_at > $14::timestamptz THEN $${consumedParam}::text ELSE $${lapsedParam}::text END,
           booking_id = CASE WHEN c.expires_at > $14::timestamptz THEN $1 ELSE c.booking_id END
         FROM lk
         WHERE c.active AND c.kind = 'hold' AND (
           (c.resolution_id = $6 AND c.option_id = $7 AND c.expires_at > $14::timestamptz AND ($19::text IS NULL OR c.ref_id = $19))
           OR (c.expires_at <= $14::timestamptz AND c.provider_id = $4 AND c.during && tstzrange($16::timestamptz, $17::timestamptz)))
         RETURNING c.kind, c.end_reason, c.organization_id, c.platform_id, c.ref_id, c.resolution_id, c.option_id, c.expires_at, c.mode),
       released AS (${releasedEventsSql('ended', '$23', '$24', '$14', `$${lapsedParam}`)}),
       -- The aggregate drains "ended" first: the claim must not meet the hold this statement consumes.
       claim AS (
         INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
         SELECT $15, $3, $2, $4, 'booking', $1, $6, $7, tstzrange($16::timestamptz, $17::timestamptz), true, NULL, $13, $14::timestamptz
         FROM lk, (SELECT count(*) FILTER (WHERE end_reason = $${consumedParam}::text) AS consumed FROM ended) e
         WHERE $19::text IS NULL OR e.consumed = 1
         RETURNING ref_id),
       bk AS (
         INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, option_id, source, status, start_at, end_at, timezone,
           customer, metadata, notes, confirm_token, mode, rescheduled_from, created_at, updated_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, 'v2', $${statusParam}::text, $8::timestamptz, $9::timestamptz, $10, $11::jsonb, $12::jsonb, NULL, NULL, $13, NULL, $14::timestamptz, $14::timestamptz FROM claim
         RETURNING *),
       res AS (UPDATE resolutions SET booking_id = bk.id FROM bk WHERE resolutions.id = bk.resolution_id),
       ev AS (
         INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at)
         SELECT $25, $2, $3, 'booking.confirmed', $24, $13, $26::jsonb, $14::timestamptz FROM bk),
       au AS (INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(27)} FROM bk)
       SELECT pre.confirmed, pre.taken, pre.names_current, (SELECT ref_id FROM ended WHERE end_reason = $${consumedParam}::text) AS used_hold_id,
         bk.*, pr.doc->>'displayName' AS provider_name, pr.doc->>'username' AS provider_username,
         sv.doc->>'title' AS service_title, (sv.doc->>'duration')::int AS service_duration
       FROM pre LEFT JOIN bk ON true LEFT JOIN providers pr ON pr.id = bk.provider_id LEFT JOIN services sv ON sv.id = bk.service_id`,
      values: [b.id, b.platform_id, b.organization_id, b.provider_id, b.service_id, b.resolution_id, b.option_id, b.start_at, b.end_at, b.timezone,
        JSON.stringify(b.customer), b.metadata ? JSON.stringify(b.metadata) : null, b.mode, now, newId('clm', now.getTime()), p.claimStart, p.claimEnd,
        claimLockKey(b.provider_id), p.holdId, p.names.provider, p.names.service, p.names.duration, lapsedEventIds(now), EVENT_API_VERSION,
        newId('evt', now.getTime()), JSON.stringify(bookingEventData(b)), ...audit.params, b.status, BULK_HOLD_ENDS.consumed, BULK_HOLD_ENDS.lapsed],
    });
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'bookings_one_per_resolution') throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
    throw claimError(err);
  }
  const { confirmed, taken, names_current: namesCurrent, used_hold_id: usedHoldId, ...rest } = r.rows[0];
  return { confirmed, taken, namesCurrent, usedHoldId: usedHoldId ?? undefined, row: rest.id ? rest as BookingRow : undefined };
}
