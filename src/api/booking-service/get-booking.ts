import type { GetBookingRequest, GetBookingResponse } from '../../gen/scheduling/v1/booking_service.js';
import { BookingPath } from '../../contract/schemas/booking.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { bookingOfCaller } from '../../application/booking/booking-of-caller.js';
import { pathId } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';

/** What GetBooking uses. */
export interface GetBookingDeps {
  db: Database;
}

/** GetBooking (GET /api/v2/bookings/:id): one booking of the caller's organization in the v2 shape. */
export async function getBooking(
  deps: GetBookingDeps,
  caller: Caller,
  request: GetBookingRequest,
): Promise<GetBookingResponse> {
  const id = pathId(BookingPath.shape.id, request.id);
  return { booking: bookingV2Message(await bookingOfCaller(deps.db, caller, id)) };
}
