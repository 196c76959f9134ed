import type { z } from 'zod';
import type { RescheduleBookingV1Body } from '../../contract/schemas/booking.js';
import { ServiceError } from '../../errors/service-error.js';
import { insertBooking, type BookingRow } from '../../persistence/booking-repository.js';
import { insertIdempotencyAnswer, type IdempotencyRecord } from '../../persistence/idempotency-answers.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { queueBookingEmail } from '../email/queue-booking-email.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingOfCaller } from './booking-of-caller.js';
import { bookingStep, initialBookingState } from './booking-state.js';
import { stepBooking } from './step-booking.js';
import { bookingRescheduledData, outboxEvent } from '../event-data.js';
import { claimRangeOf, loadBookableService, slotAtLocalTime } from './bookable-service.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { claimBookingSlot } from './claim-booking-slot.js';
import { writeBookingActor } from './write-booking-actor.js';
import { newConfirmToken } from './v1-create-booking.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

/**
 * A v1 reschedule request, checked with RescheduleBookingV1Body's rules (a combined `datetime`/`start` is refused at
 * the gateway's edge, refused-members.ts: the message cannot carry one).
 */
export type RescheduleV1Input = z.output<typeof RescheduleBookingV1Body>;

/**
 * POST /api/v1/bookings/:id/reschedule: moves a pending or confirmed booking to the local `date` and `time` in
 * the provider's schedule timezone. One transaction: the original becomes `rescheduled` (its slot freed, it
 * points to the new booking), a new `pending` booking (same provider, service, attendee) claims the new slot
 * (409 SLOT_UNAVAILABLE on overlap, which undoes everything), booking.rescheduled and a confirmation e-mail. Answers
 * `answerOf` the new booking's row; with `idempotency`, that answer is committed in the transaction too, for that
 * key's replays.
 */
export async function rescheduleBookingV1<A>(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'config' | 'actors'>,
  caller: Caller,
  id: string,
  body: RescheduleV1Input,
  answerOf: (row: BookingRow) => A,
  idempotency?: IdempotencyRecord,
): Promise<A> {
  const now = deps.clock();
  const newBookingId = newId('bkg', now.getTime());
  const event = { type: 'RESCHEDULE' as const, at: now.toISOString(), rescheduledTo: newBookingId };
  const original = await bookingOfCaller(deps.db, caller, id);
  // A final booking is a state conflict whatever the requested time; the transaction checks again under the lock.
  if (!bookingStep(original, event).changed)
    throw new ServiceError('BOOKING_STATE_CONFLICT', `A ${original.status} booking cannot be rescheduled.`);
  const bookable = await loadBookableService(deps.db, caller, original.provider_id, original.service_id, {
    provider: 'providerId',
    service: 'serviceId',
  });
  const slot = slotAtLocalTime(bookable, body.date, body.time, now);
  if (!slot)
    throw new ServiceError(
      'SLOT_OUTSIDE_AVAILABILITY',
      `${body.date} ${body.time} is not a slot of the provider's availability (timezone ${bookable.schedule?.timezone ?? 'none'}).`,
      { field: 'time' },
    );
  const claim = claimRangeOf(bookable.service, slot.start, slot.end);
  // Lock order (slot-claims.ts): the original's row first (stepBooking's load), then writes that need no claim lock, then
  // one statement that takes the provider's claim lock, frees the original's slot, claims the new one and appends the
  // audit entry. A 409 SLOT_UNAVAILABLE thrown there rolls the whole step back, the original's change included.
  const step = (await stepBooking(deps, event, {
    causedBy: stepCause(caller),
    load: (tx) => bookingOfCaller(tx, caller, id, { forUpdate: true }),
    commit: async (tx, old, moved) => {
      const start = new Date(slot.start);
      const end = new Date(slot.end);
      const { status, confirmedAt } = initialBookingState({
        id: newBookingId,
        organization_id: old.organization_id,
        source: 'v1',
        start_at: start,
        end_at: end,
        created_at: now,
        rescheduled_from: id,
      });
      const fresh = await insertBooking(tx, {
        id: newBookingId,
        platformId: old.platform_id,
        organizationId: old.organization_id,
        providerId: old.provider_id,
        serviceId: old.service_id,
        resolutionId: null,
        optionId: null,
        source: 'v1',
        status,
        confirmedAt,
        start,
        end,
        timezone: bookable.schedule!.timezone,
        customer: old.customer,
        metadata: old.metadata,
        notes: body.notes ?? old.notes,
        confirmToken: newConfirmToken(),
        mode: caller.mode,
        rescheduledFrom: id,
        now,
      });
      await storeEvent(
        tx,
        outboxEvent('booking.rescheduled', bookingRescheduledData(moved, fresh), {
          platformId: old.platform_id,
          organizationId: old.organization_id,
          mode: caller.mode,
          createdAt: now,
        }),
      );
      await queueBookingEmail(tx, {
        config: deps.config,
        booking: fresh,
        kind: 'booking_confirmation',
        mode: caller.mode,
        now,
      });
      const view = answerOf(fresh);
      if (idempotency) await insertIdempotencyAnswer(tx, idempotency, view, now);
      // The original's slot is freed in the same statement, so moving within (or next to) its own time is allowed.
      await claimBookingSlot(tx, {
        organizationId: old.organization_id,
        platformId: old.platform_id,
        providerId: old.provider_id,
        kind: 'booking',
        refId: newBookingId,
        start: claim.start,
        end: claim.end,
        mode: caller.mode,
        now,
        replaces: { refId: id, reason: 'rescheduled' },
        audit: callerAuditEntry(caller, now, {
          ...AUDIT_ACTIONS.bookingReschedule,
          resourceId: id,
          before: { status: old.status, start: old.start_at.toISOString(), end: old.end_at.toISOString() },
          after: {
            status: moved.status,
            rescheduledTo: moved.rescheduled_to,
            start: fresh.start_at.toISOString(),
            end: fresh.end_at.toISOString(),
          },
        }),
      });
      return { created: fresh, answer: view };
    },
  }))!;
  if (!step.committed || step.value !== 'rescheduled')
    throw new ServiceError('BOOKING_STATE_CONFLICT', `A ${step.before.status} booking cannot be rescheduled.`);
  const { created, answer } = step.committed;
  // The new booking starts its own lifecycle: its actor is created from the row just committed.
  await writeBookingActor(deps, created, { causedBy: stepCause(caller) });
  return answer;
}
