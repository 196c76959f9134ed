import { BookSlotResponse, type BookSlotRequest } from '../../gen/scheduling/v1/booking_service.js';
import { CreateBookingV1Body } from '../../contract/schemas/booking.js';
import type { Caller } from '../../application/caller.js';
import type { TypedAnswer, TypedCall } from '../../application/operation.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import { createBookingV1 as bookDirectly } from '../../application/booking/v1-create-booking.js';
import { given, RequestProblems } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';
import { idempotentWrite } from './idempotent-write.js';
import { responseOfStored, storedAnswerOf } from './stored-answer.js';
import { bookSlotResponseOfV1Json } from './v1-json-answers.js';

/**
 * What BookSlot uses: the direct booking path's (the ledger: booking, claim, e-mail; the booking's actor; the clock;
 * the e-mail settings) and the idempotency store.
 */
export type BookSlotDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock' | 'config' | 'idempotency'>;

/**
 * BookSlot (POST /api/v1/bookings): books a slot id from ListSlots as a `pending` booking (v1-create-booking.ts) and
 * answers it with its confirmation token; with an `idempotency-key`, a retry with the same request answers the first
 * booking.
 */
export async function bookSlot(
  deps: BookSlotDeps,
  caller: Caller,
  request: BookSlotRequest,
  call: TypedCall = { headers: {} },
): Promise<TypedAnswer<BookSlotResponse>> {
  const shape = CreateBookingV1Body.shape;
  const a = request.attendee;
  // The request as REST spells it: what is checked, and what a replay must repeat.
  const attendee =
    a === undefined
      ? undefined
      : {
          ...(given(a.name) !== undefined ? { name: a.name } : {}),
          ...(given(a.email) !== undefined ? { email: a.email } : {}),
          ...(a.timezone !== undefined ? { timezone: a.timezone } : {}),
        };
  const body = {
    ...(given(request.providerId) !== undefined ? { providerId: request.providerId } : {}),
    ...(given(request.serviceId) !== undefined ? { serviceId: request.serviceId } : {}),
    ...(given(request.slotId) !== undefined ? { slotId: request.slotId } : {}),
    ...(attendee !== undefined ? { attendee } : {}),
    ...(request.notes !== undefined ? { notes: request.notes } : {}),
  };
  const problems = new RequestProblems();
  const providerId = problems.check('providerId', shape.providerId, body.providerId);
  const serviceId = problems.check('serviceId', shape.serviceId, body.serviceId);
  const slotId = problems.check('slotId', shape.slotId, body.slotId);
  const checkedAttendee = problems.check('attendee', shape.attendee, attendee);
  const notes = problems.check('notes', shape.notes, body.notes);
  problems.throwIfAny();
  const input = { providerId: providerId!, serviceId: serviceId!, slotId: slotId!, attendee: checkedAttendee!, notes };
  return idempotentWrite(
    deps,
    caller,
    call,
    { endpoint: 'v1-bookings', payload: body },
    (record) =>
      bookDirectly(
        deps,
        caller,
        input,
        (row) =>
          storedAnswerOf(BookSlotResponse, {
            booking: bookingV2Message(row, deps.config.publicBaseUrl),
            confirmationToken: row.confirm_token ?? '',
          }),
        record,
      ),
    (stored) =>
      responseOfStored(BookSlotResponse, stored, (json) => bookSlotResponseOfV1Json(json, caller.organizationId)),
  );
}
