import { ServiceError } from '../../errors/service-error.js';
import { holdActorKind, resolutionActorKind } from '../../../machines/machine-versions.js';
import { ActorNotFoundError } from '../../persistence/actor-store-errors.js';
import { findBooking, insertBooking } from '../../persistence/booking-repository.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { recordAudit } from '../record-audit.js';
import { accessResolution } from '../resolution/read-resolution.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingEventData, toBookingV2 } from './booking-views.js';
import { holdById, latestHold } from './hold-flows.js';
import { holdStep, type HoldRow } from './hold-state.js';
import { endClaim, endLapsedHolds, insertClaim } from './slot-claims.js';
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
  // Validate outside the transaction too, so errors come without taking locks.
  if (input.holdId) checkHold(await holdById(deps.db, input.holdId), resolutionId, input.optionId, at, true);
  const bookingId = newId('bkg', now.getTime());
  const usedHoldId = await deps.db.transaction(async (tx) => {
    // Without a holdId, the resolution's own active hold on this option is used (it holds this very slot).
    const hold = input.holdId
      ? checkHold(await holdById(tx, input.holdId, true), resolutionId, input.optionId, at, true)
      : activeHoldId ? checkHoldQuiet(await latestHold(tx, resolutionId, input.optionId, true), resolutionId, input.optionId, at) : undefined;
    if (hold) await endClaim(tx, hold.ref_id, 'consumed', now, bookingId);
    await endLapsedHolds(tx, { providerId: option.providerId, start: new Date(option.claimStart), end: new Date(option.claimEnd), now });
    try {
      await tx.query('SAVEPOINT booking');
      await insertBooking(tx, {
        id: bookingId, platformId: caller.platformId, organizationId: caller.organizationId, providerId: option.providerId, serviceId: option.serviceId,
        resolutionId, optionId: option.optionId, source: 'v2', status: 'confirmed', start: new Date(option.start), end: new Date(option.end), timezone: option.timezone,
        customer: { name: input.customer.name, email: input.customer.email, timezone: input.customer.timezone ?? null, lastname: input.customer.lastname ?? null },
        metadata: input.metadata ?? null, notes: null, confirmToken: null, mode: caller.mode, rescheduledFrom: null, now,
      });
      await tx.query('RELEASE SAVEPOINT booking');
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT booking').catch(() => undefined);
      if ((err as { code?: string }).code === '23505') throw new ServiceError('RESOLUTION_ALREADY_CONFIRMED');
      throw err;
    }
    await insertClaim(tx, { organizationId: caller.organizationId, platformId: caller.platformId, providerId: option.providerId, kind: 'booking', refId: bookingId, resolutionId, optionId: option.optionId, start: new Date(option.claimStart), end: new Date(option.claimEnd), mode: caller.mode, now });
    await tx.query('UPDATE resolutions SET booking_id = $2 WHERE id = $1', [resolutionId, bookingId]);
    const row = (await findBooking(tx, bookingId))!;
    await storeEvent(tx, { platformId: caller.platformId, organizationId: caller.organizationId, type: 'booking.confirmed', mode: caller.mode, createdAt: now, data: bookingEventData(row) });
    await recordAudit(tx, caller, now, { action: 'booking.create', resourceType: 'booking', resourceId: bookingId, after: toBookingV2(row) });
    return hold?.ref_id;
  });
  const row = (await findBooking(deps.db, bookingId))!;
  await syncBookingActor(deps, row, undefined);
  if (usedHoldId) await deps.actors.send(holdActorKind, usedHoldId, { type: 'CONFIRM', bookingId, at }).catch((err) => { if (!(err instanceof ActorNotFoundError)) throw err; });
  await deps.actors.send(resolutionActorKind, resolutionId, { type: 'CONFIRMED', bookingId, ...(usedHoldId ? { holdId: usedHoldId } : {}), at }, {
    onTransition: (_b, after) => ({ timers: [{ name: 'expire', dueAt: new Date(after.context.expiresAt) }] }),
  });
  return toBookingV2(row);
}

/** The implicit hold: used only when it is the active hold of this option; anything else is ignored. */
function checkHoldQuiet(hold: HoldRow | undefined, resolutionId: string, optionId: string, at: string): HoldRow | undefined {
  if (!hold || hold.resolution_id !== resolutionId || hold.option_id !== optionId) return undefined;
  const step = holdStep(hold, { type: 'CONFIRM', bookingId: 'pending', at });
  return step.value === 'consumed' && step.changed ? hold : undefined;
}
