import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { CreateBookingV1Body } from '../../contract/schemas/booking.js';
import { decodeSlotId } from '../../domain/availability/slot-id.js';
import { ServiceError } from '../../errors/service-error.js';
import { insertBooking, type BookingRow } from '../../persistence/booking-repository.js';
import { insertIdempotencyAnswer, type IdempotencyRecord } from '../../persistence/idempotency-answers.js';
import { newId } from '../../persistence/new-id.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { queueBookingEmail } from '../email/queue-booking-email.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { claimRangeOf, loadBookableService, slotStartingAt } from './bookable-service.js';
import { initialBookingState } from './booking-state.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { claimBookingSlot } from './claim-booking-slot.js';
import { writeBookingActor } from './write-booking-actor.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

/** A fresh confirmation token: 32 random bytes, base64url (the credential of the e-mailed link). */
export function newConfirmToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A v1 create request, checked with CreateBookingV1Body's rules (src/api/booking-service/create-booking-v1.ts). */
export type BookingV1Input = z.output<typeof CreateBookingV1Body>;

/**
 * POST /api/v1/bookings: books a slot directly as a `pending` booking. One transaction writes the booking,
 * its slot claim (the exclusion constraint turns a race for the slot into 409 SLOT_UNAVAILABLE for every
 * loser, across processes), the audit event and the confirmation e-mail; the actor mirrors it afterwards. Answers
 * `answerOf` the booking row (its confirmation token in `confirm_token`); with `idempotency`, that answer is committed
 * in the transaction too, for that key's replays.
 */
export async function createBookingV1<A>(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'config' | 'actors'>,
  caller: Caller,
  body: BookingV1Input,
  answerOf: (row: BookingRow) => A,
  idempotency?: IdempotencyRecord,
): Promise<A> {
  const slot = decodeSlotId(body.slotId);
  if (!slot)
    throw new ServiceError('VALIDATION_ERROR', 'slotId: is not a slot id issued by GET /api/v1/slots', {
      field: 'slotId',
      details: [{ field: 'slotId', code: 'INVALID', message: 'is not a slot id issued by GET /api/v1/slots' }],
    });
  if (slot.providerId !== body.providerId || slot.serviceId !== body.serviceId) {
    throw new ServiceError('VALIDATION_ERROR', 'slotId: names a slot of another provider or service.', {
      field: 'slotId',
      details: [{ field: 'slotId', code: 'INVALID', message: 'names a slot of another provider or service' }],
    });
  }
  const bookable = await loadBookableService(deps.db, caller, body.providerId, body.serviceId, {
    provider: 'providerId',
    service: 'serviceId',
  });
  const now = deps.clock();
  const match = slotStartingAt(bookable, slot.start, now);
  if (!match)
    throw new ServiceError(
      'SLOT_OUTSIDE_AVAILABILITY',
      "The slot is not (or no longer) in the provider's availability.",
      { field: 'slotId' },
    );
  const id = newId('bkg', now.getTime());
  const confirmToken = newConfirmToken();
  const claim = claimRangeOf(bookable.service, match.start, match.end);
  // Lock order (slot-claims.ts): the new booking row and its e-mail need no lock; the claim comes last, so the
  // provider's claim lock is held only from the claim statement to COMMIT.
  const start = new Date(match.start);
  const end = new Date(match.end);
  const { status, confirmedAt } = initialBookingState({
    id,
    organization_id: caller.organizationId,
    source: 'v1',
    start_at: start,
    end_at: end,
    created_at: now,
    rescheduled_from: null,
  });
  const { row, answer } = await deps.db.transaction(async (tx) => {
    const created = await insertBooking(tx, {
      id,
      platformId: caller.platformId,
      organizationId: caller.organizationId,
      providerId: body.providerId,
      serviceId: body.serviceId,
      resolutionId: null,
      optionId: null,
      source: 'v1',
      status,
      confirmedAt,
      start,
      end,
      timezone: bookable.schedule!.timezone,
      customer: { name: body.attendee.name, email: body.attendee.email, timezone: body.attendee.timezone ?? null },
      metadata: null,
      notes: body.notes ?? null,
      confirmToken,
      mode: caller.mode,
      rescheduledFrom: null,
      now,
    });
    await queueBookingEmail(tx, {
      config: deps.config,
      booking: created,
      kind: 'booking_confirmation',
      mode: caller.mode,
      now,
    });
    const view = answerOf(created);
    if (idempotency) await insertIdempotencyAnswer(tx, idempotency, view, now);
    await claimBookingSlot(tx, {
      organizationId: caller.organizationId,
      platformId: caller.platformId,
      providerId: body.providerId,
      kind: 'booking',
      refId: id,
      start: claim.start,
      end: claim.end,
      mode: caller.mode,
      now,
      audit: callerAuditEntry(caller, now, {
        ...AUDIT_ACTIONS.bookingCreate,
        resourceId: id,
        after: {
          status: created.status,
          providerId: created.provider_id,
          serviceId: created.service_id,
          start: created.start_at.toISOString(),
          end: created.end_at.toISOString(),
          source: 'v1',
        },
      }),
    });
    return { row: created, answer: view };
  });
  await writeBookingActor(deps, row, { causedBy: stepCause(caller) });
  return answer;
}
