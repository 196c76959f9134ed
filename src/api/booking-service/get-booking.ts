import type { GetBookingRequest, GetBookingResponse } from '../../gen/scheduling/v1/booking_service.js';
import { BookingPath } from '../../contract/schemas/booking.js';
import type { Database } from '../../persistence/database.js';
import type { Config } from '../../config/load-config.js';
import type { Caller } from '../../application/caller.js';
import { bookingOfCaller } from '../../application/booking/booking-of-caller.js';
import { pathId } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';

/** What GetBooking uses: the database, and the public base URL of a booking's confirmation link. */
export interface GetBookingDeps {
  db: Database;
  config: Pick<Config, 'publicBaseUrl'>;
}

/**
 * GetBooking (GET /api/v2/bookings/:id; GET /api/v1/bookings/:id renders it in the v1 shape): one booking of the
 * caller's organization, with its confirmation link while it has one.
 */
export async function getBooking(
  deps: GetBookingDeps,
  caller: Caller,
  request: GetBookingRequest,
): Promise<GetBookingResponse> {
  const id = pathId(BookingPath.shape.id, request.id);
  return { booking: bookingV2Message(await bookingOfCaller(deps.db, caller, id), deps.config.publicBaseUrl) };
}
