import { CancelBookingResponse, type CancelBookingRequest } from '../../gen/scheduling/v1/booking_service.js';
import { BookingPath, CancelBookingV1Body } from '../../contract/schemas/booking.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { cancelBookingV1 as cancelDirectBooking } from '../../application/booking/v1-cancel-booking.js';
import { pathId, RequestProblems } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';
import { idempotentWrite } from './idempotent-write.js';
import { responseOfStored, storedAnswerOf } from './stored-answer.js';
import { cancelBookingResponseOfV1Json } from './v1-json-answers.js';

/** What CancelBooking uses: the booking's ledger and actor, the clock, e-mail settings and the idempotency store. */
export type CancelBookingDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock' | 'config' | 'idempotency'>;

/**
 * CancelBooking (POST /api/v1/bookings/:id/cancel): cancels a pending or confirmed booking (v1-cancel-booking.ts) and
 * answers it cancelled; with an `idempotency-key`, a retry answers the first cancellation instead of 409.
 */
export async function cancelBooking(
  deps: CancelBookingDeps,
  caller: Caller,
  request: CancelBookingRequest,
  call: TypedCall = { headers: {} },
): Promise<TypedAnswer<CancelBookingResponse>> {
  const id = pathId(BookingPath.shape.id, request.id);
  const body = request.reason !== undefined ? { reason: request.reason } : {};
  const problems = new RequestProblems();
  const reason = problems.check('reason', CancelBookingV1Body.shape.reason, body.reason);
  problems.throwIfAny();
  return idempotentWrite(
    deps,
    caller,
    call,
    { endpoint: `v1-cancel:${id}`, payload: body },
    (record) =>
      cancelDirectBooking(
        deps,
        caller,
        id,
        { reason },
        (row) => storedAnswerOf(CancelBookingResponse, { booking: bookingV2Message(row, deps.config.publicBaseUrl) }),
        record,
      ),
    (stored) =>
      responseOfStored(CancelBookingResponse, stored, (json) =>
        cancelBookingResponseOfV1Json(json, caller.organizationId),
      ),
  );
}
