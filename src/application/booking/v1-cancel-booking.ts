import { ServiceError } from '../../errors/service-error.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { queueBookingEmail } from '../email/queue-booking-email.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingOfCaller } from './booking-of-caller.js';
import { stepBooking } from './step-booking.js';
import { bookingCancelledData, outboxEvent } from '../event-data.js';
import { callerAuditEntry } from '../caller-audit-entry.js';
import { endClaimLocked } from '../../persistence/slot-claims.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';
import { insertIdempotencyAnswer, type IdempotencyRecord } from '../../persistence/idempotency-answers.js';

/**
 * POST /api/v1/bookings/:id/cancel: cancels a pending or confirmed booking (else 409 BOOKING_STATE_CONFLICT),
 * frees its slot, stores booking.cancelled and the cancellation e-mail, and answers `answerOf` the cancelled booking's
 * row. With `idempotency`, that answer is committed in the transaction too, for that key's replays.
 */
export async function cancelBookingV1<A>(
  deps: Pick<ResolutionDeps, 'db' | 'clock' | 'config' | 'actors'>,
  caller: Caller,
  id: string,
  body: { reason?: string | undefined },
  answerOf: (row: BookingRow) => A,
  idempotency?: IdempotencyRecord,
): Promise<A> {
  const reason = body.reason ?? null;
  const now = deps.clock();
  const event = { type: 'CANCEL' as const, at: now.toISOString(), ...(reason !== null ? { reason } : {}) };
  // Lock order (slot-claims.ts): the booking row, then writes that need no claim lock, then the claim ended under
  // the provider's claim lock with the audit entry, in the last statement before COMMIT.
  const step = (await stepBooking(deps, event, {
    causedBy: stepCause(caller),
    load: (tx) => bookingOfCaller(tx, caller, id, { forUpdate: true }),
    commit: async (tx, before, after) => {
      const answer = answerOf(after);
      if (idempotency) await insertIdempotencyAnswer(tx, idempotency, answer, now);
      await storeEvent(
        tx,
        outboxEvent('booking.cancelled', bookingCancelledData(after, now, reason), {
          platformId: after.platform_id,
          organizationId: after.organization_id,
          mode: caller.mode,
          createdAt: now,
        }),
      );
      await queueBookingEmail(tx, {
        config: deps.config,
        booking: after,
        kind: 'booking_cancellation',
        mode: caller.mode,
        now,
        reason,
      });
      await endClaimLocked(tx, {
        providerId: before.provider_id,
        refId: id,
        reason: 'cancelled',
        now,
        audit: callerAuditEntry(caller, now, {
          ...AUDIT_ACTIONS.bookingCancel,
          resourceId: id,
          before: { status: before.status },
          after: {
            status: after.status,
            cancelledAt: after.cancelled_at?.toISOString() ?? null,
            reason: after.cancel_reason,
          },
        }),
      });
      return answer;
    },
  }))!;
  // Nothing was written unless the machine moved the booking.
  if (!step.changed || step.value !== 'cancelled')
    throw new ServiceError('BOOKING_STATE_CONFLICT', `A ${step.before.status} booking cannot be cancelled.`);
  return step.committed!;
}
