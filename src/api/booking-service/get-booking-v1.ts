import type { GetBookingV1Request, GetBookingV1Response } from '../../gen/scheduling/v1/booking_service.js';
import { BookingPath } from '../../contract/schemas/booking.js';
import type { Database } from '../../persistence/database.js';
import type { Config } from '../../config/load-config.js';
import type { Caller } from '../../application/caller.js';
import { bookingOfCaller } from '../../application/booking/booking-of-caller.js';
import { pathId } from '../request-problems.js';
import { bookingV1DetailMessage } from '../messages/booking-message.js';

/** What GetBookingV1 uses. */
export interface GetBookingV1Deps {
  db: Database;
  config: Pick<Config, 'publicBaseUrl'>;
}

/** GetBookingV1 (GET /api/v1/bookings/:id): the v1 detail shape of any booking of the organization. */
export async function getBookingV1(
  deps: GetBookingV1Deps,
  caller: Caller,
  request: GetBookingV1Request,
): Promise<GetBookingV1Response> {
  const id = pathId(BookingPath.shape.id, request.id);
  return {
    bookingV1Detail: bookingV1DetailMessage(await bookingOfCaller(deps.db, caller, id), deps.config.publicBaseUrl),
  };
}
