import { ServiceError } from '../../errors/service-error.js';
import { findBooking, type BookingRow } from '../../persistence/booking-repository.js';
import type { Queryable } from '../../persistence/database.js';
import type { Caller } from '../caller.js';

/** Reads a booking of the caller's organization: 404 BOOKING_NOT_FOUND when unknown, 403 FORBIDDEN when another organization's. */
export async function bookingOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<BookingRow> {
  const row = await findBooking(db, id, opts);
  if (!row) throw new ServiceError('BOOKING_NOT_FOUND');
  if (row.organization_id !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'This booking belongs to another organization.');
  return row;
}
