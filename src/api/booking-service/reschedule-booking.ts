import { RescheduleBookingResponse, type RescheduleBookingRequest } from '../../gen/scheduling/v1/booking_service.js';
import { BookingPath, RescheduleBookingV1Body } from '../../contract/schemas/booking.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { rescheduleBookingV1 as moveBooking } from '../../application/booking/v1-reschedule-booking.js';
import { given, pathId, RequestProblems } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';
import { idempotentWrite } from './idempotent-write.js';
import { responseOfStored, storedAnswerOf } from './stored-answer.js';
import { rescheduleBookingResponseOfV1Json } from './v1-json-answers.js';

/**
 * What RescheduleBooking uses: the direct booking path's (the ledger, the bookings' actors, the clock, the e-mail
 * settings) and the idempotency store.
 */
export type RescheduleBookingDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock' | 'config' | 'idempotency'>;

/**
 * RescheduleBooking (POST /api/v1/bookings/:id/reschedule): moves a pending or confirmed booking to the local `date`
 * and `time` (v1-reschedule-booking.ts) and answers the new booking that takes the new slot. A combined `datetime`/`start` has no field here: REST's is refused 422
 * COMBINED_DATETIME_NOT_ACCEPTED at the gateway's edge (refused-members.ts).
 */
export async function rescheduleBooking(
  deps: RescheduleBookingDeps,
  caller: Caller,
  request: RescheduleBookingRequest,
  call: TypedCall = { headers: {} },
): Promise<TypedAnswer<RescheduleBookingResponse>> {
  const id = pathId(BookingPath.shape.id, request.id);
  const body = {
    ...(given(request.date) !== undefined ? { date: request.date } : {}),
    ...(given(request.time) !== undefined ? { time: request.time } : {}),
    ...(request.notes !== undefined ? { notes: request.notes } : {}),
  };
  const shape = RescheduleBookingV1Body.shape;
  const problems = new RequestProblems();
  const date = problems.check('date', shape.date, body.date);
  const time = problems.check('time', shape.time, body.time);
  const notes = problems.check('notes', shape.notes, body.notes);
  problems.throwIfAny();
  return idempotentWrite(
    deps,
    caller,
    call,
    { endpoint: `v1-reschedule:${id}`, payload: body },
    (record) =>
      moveBooking(
        deps,
        caller,
        id,
        { date: date!, time: time!, notes },
        (row) =>
          storedAnswerOf(RescheduleBookingResponse, { booking: bookingV2Message(row, deps.config.publicBaseUrl) }),
        record,
      ),
    (stored) =>
      responseOfStored(RescheduleBookingResponse, stored, (json) =>
        rescheduleBookingResponseOfV1Json(json, caller.organizationId),
      ),
  );
}
