import { ServiceError } from '../../errors/service-error.js';
import { holdActorKind, resolutionActorKind } from '../../../machines/machine-versions.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { AUDIT_INSERT_COLUMNS, auditInsertParams, auditSelectList } from '../../persistence/audit-log.js';
import { EVENT_API_VERSION } from '../../persistence/event-outbox.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { auditActor } from '../caller.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingEventData, toBookingV2 } from './booking-views.js';
import { holdById, latestHold } from './hold-flows.js';
import { holdStep, type HoldRow } from './hold-state.js';
import { claimError, claimLockKey, endLapsedHolds } from './slot-claims.js';
import { syncBookingActor } from './sync-booking-actor.js';

/** A validated confirm body. */
export interface ConfirmInput {
  optionId: string;
  holdId?: string | undefined;
  customer: { name: string; email: string; lastname?: string | undefined; timezone?: string | undefined };
  metadata?: Record<string, unknown> | undefined;
}

/** Checks a hold against the option being confirmed (CONTRACT part 5) with the hold machine. */
function checkHold(hold: HoldRow | undefined, resolutionId: string, optionId: string, at: string, explicit: boolean): HoldRow | undefined {
  if (!hold || hold.resolution_id !== resolutionId) {
    if (explicit) throw new ServiceError('HOLD_NOT_FOUND', undefined, { field: 'holdId' });
    return undefined;
  }
  if (hold.option_id !== optionId) throw new ServiceError('HOLD_MISMATCH', undefined, { field: 'holdId' });
  const step = holdStep(hold, { type: 'CONFIRM', bookingId: 'pending', at });
  if (step.value === 'expired') throw new ServiceError('HOLD_EXPIRED', `The hold expired at ${hold.expires_at.toISOString()}.`, { field: 'holdId' });
  if (step.value === 'released') throw new ServiceError('HOLD_RELEASED', undefined, { field: 'holdId' });
  if (step.value === 'consumed' && !step.changed) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  return hold;
}

/**
 * Confirms an option into a booking (SPEC 4.1 confirm). The ledger transaction is the arbiter: the booking's
 * claim goes through the exclusion constraint (409 SLOT_UNAVAILABLE), one booking per resolution through a
 * unique index (409 RESOLUTION_ALREADY_CONFIRMED), and the hold used, if any, is consumed. The booking,
 * hold and resolution actors mirror the result afterwards.
 */
export async function confirmResolution(deps: ResolutionDeps, caller: Caller, resolutionId: string, input: ConfirmInput) {
  const { record, bookingId: already, activeHoldId } = await accessResolution(deps, caller, resolutionId);
  if (already) throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
  const option = record.options.find((o) => o.optionId === input.optionId);
  if (!option) throw new ServiceError('OPTION_NOT_FOUND', undefined, { field: 'optionId' });
  const now = deps.clock();
  const at = now.toISOString();
  const bookingId = newId('bkg', now.getTime());
  const claimStart = new Date(option.claimStart);
  const claimEnd = new Date(option.claimEnd);
  const { usedHoldId, row } = await deps.db.transaction(async (tx) => {
    // Without a holdId, the resolution's own active hold on this option is used (it holds this very slot).
    const hold = input.holdId
      ? checkHold(await holdById(tx, input.holdId, true), resolutionId, input.optionId, at, true)
      : activeHoldId ? checkHoldQuiet(await latestHold(tx, resolutionId, input.optionId, true), resolutionId, input.optionId, at) : undefined;
    // The hold's claim (and lapsed holds in the way) end in a statement before the booking's claim is inserted over
    // the same time: statements of one CTE run in no fixed order.
    await endLapsedHolds(tx, { providerId: option.providerId, start: claimStart, end: claimEnd, now, consumedHold: hold ? { refId: hold.ref_id, bookingId } : undefined });
    let booked: BookingRow;
    try {
      // Booking row, its claim (after the provider's claim lock) and the resolution's booking_id in one statement.
      const r = await tx.query({
        name: 'confirm-booking',
        text: `WITH lk AS (SELECT pg_advisory_xact_lock(hashtext($18)) AS locked),
         bk AS (
           INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, option_id, source, status, start_at, end_at, timezone,
             customer, metadata, notes, confirm_token, mode, rescheduled_from, created_at, updated_at)
           SELECT $1, $2, $3, $4, $5, $6, $7, 'v2', 'confirmed', $8::timestamptz, $9::timestamptz, $10, $11::jsonb, $12::jsonb, NULL, NULL, $13, NULL, $14::timestamptz, $14::timestamptz FROM lk
           RETURNING *),
         claim AS (
           INSERT INTO slot_claims (id, organization_id, platform_id, provider_id, kind, ref_id, resolution_id, option_id, during, active, expires_at, mode, created_at)
           SELECT $15, organization_id, platform_id, provider_id, 'booking', id, resolution_id, option_id, tstzrange($16::timestamptz, $17::timestamptz), true, NULL, mode, created_at FROM bk),
         res AS (UPDATE resolutions SET booking_id = bk.id FROM bk WHERE resolutions.id = bk.resolution_id)
         SELECT bk.*, p.doc->>'displayName' AS provider_name, p.doc->>'username' AS provider_username,
           s.doc->>'title' AS service_title, (s.doc->>'duration')::int AS service_duration
         FROM bk JOIN providers p ON p.id = bk.provider_id JOIN services s ON s.id = bk.service_id`,
        values: [bookingId, caller.platformId, caller.organizationId, option.providerId, option.serviceId, resolutionId, option.optionId, new Date(option.start), new Date(option.end), option.timezone,
          JSON.stringify({ name: input.customer.name, email: input.customer.email, timezone: input.customer.timezone ?? null, lastname: input.customer.lastname ?? null }),
          input.metadata ? JSON.stringify(input.metadata) : null, caller.mode, now, newId('clm', now.getTime()), claimStart, claimEnd,
          claimLockKey(option.providerId)],
      });
      booked = r.rows[0] as BookingRow;
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'bookings_one_per_resolution') throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
      throw claimError(err);
    }
    const audit = auditInsertParams({
      platformId: caller.platformId, organizationId: caller.organizationId, actor: auditActor(caller), action: 'booking.create', resourceType: 'booking', resourceId: bookingId,
      requestId: caller.requestId, before: null, after: toBookingV2(booked), timestamp: now,
    });
    await tx.query({
      name: 'confirm-booking-records',
      text: `WITH ev AS (INSERT INTO events (id, platform_id, organization_id, type, api_version, mode, data, created_at) VALUES ($1, $2, $3, 'booking.confirmed', $4, $5, $6, $7))
       INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) SELECT ${auditSelectList(8)}`,
      values: [newId('evt', now.getTime()), caller.platformId, caller.organizationId, EVENT_API_VERSION, caller.mode, JSON.stringify(bookingEventData(booked)), now, ...audit.params],
    });
    return { usedHoldId: hold?.ref_id, row: booked };
  });
  await Promise.all([
    syncBookingActor(deps, row, undefined),
    usedHoldId ? deps.actors.send(holdActorKind, usedHoldId, { type: 'CONFIRM', bookingId, at }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; }) : undefined,
    deps.actors.send(resolutionActorKind, resolutionId, { type: 'CONFIRMED', bookingId, ...(usedHoldId ? { holdId: usedHoldId } : {}), at }, {
      onTransition: (_b, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
    }),
  ]);
  return toBookingV2(row);
}

/** The implicit hold: used only when it is the active hold of this option; anything else is ignored. */
function checkHoldQuiet(hold: HoldRow | undefined, resolutionId: string, optionId: string, at: string): HoldRow | undefined {
  if (!hold || hold.resolution_id !== resolutionId || hold.option_id !== optionId) return undefined;
  const step = holdStep(hold, { type: 'CONFIRM', bookingId: 'pending', at });
  return step.value === 'consumed' && step.changed ? hold : undefined;
}
