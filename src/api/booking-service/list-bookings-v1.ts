import type { ListBookingsV1Request, ListBookingsV1Response } from '../../gen/scheduling/v1/booking_service.js';
import { BookingStatus as BookingStatusMessage } from '../../gen/scheduling/v1/resources.js';
import { ListBookingsV1Query } from '../../contract/schemas/booking.js';
import type { Database } from '../../persistence/database.js';
import { listBookingsPage, type BookingRow } from '../../persistence/booking-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { BOOKING_STATUS_OF, BOOKING_STATUS_REFUSAL, bookingV1ListItemMessage } from '../messages/booking-message.js';

/** What ListBookingsV1 uses. */
export interface ListBookingsV1Deps {
  db: Database;
}

/**
 * A page number or size as its query-string rule judges it: the typed form carries the number, REST its decimal
 * text (`page` 1..1000000, `limit` 1..100).
 */
function checkedCount(problems: RequestProblems, field: 'page' | 'limit', value: number | undefined) {
  if (value === undefined) return undefined;
  // A negative or fractional count is no decimal text of digits either.
  if (!Number.isInteger(value) || value < 0) return (problems.add(field, 'must be an integer'), undefined);
  return problems.check(field, ListBookingsV1Query.shape[field], String(value));
}

/** ListBookingsV1 (GET /api/v1/bookings): the organization's bookings (v1 and v2), newest first, paged by number. */
export async function listBookingsV1(
  deps: ListBookingsV1Deps,
  caller: Caller,
  request: ListBookingsV1Request,
): Promise<ListBookingsV1Response> {
  const problems = new RequestProblems();
  const pageAsked = checkedCount(problems, 'page', request.page);
  const limitAsked = checkedCount(problems, 'limit', request.limit);
  const asked = request.bookingStatus ?? BookingStatusMessage.BOOKING_STATUS_UNSPECIFIED;
  let status: BookingRow['status'] | undefined;
  if (asked !== BookingStatusMessage.BOOKING_STATUS_UNSPECIFIED) {
    status = BOOKING_STATUS_OF.get(asked);
    if (status === undefined) problems.add('status', BOOKING_STATUS_REFUSAL);
  }
  problems.throwIfAny();
  const page = pageAsked ?? 1;
  const limit = limitAsked ?? 20;
  const { rows, total } = await listBookingsPage(
    deps.db,
    { organizationId: caller.organizationId, status },
    { limit, offset: (page - 1) * limit },
  );
  return { bookingsV1Page: { bookings: rows.map(bookingV1ListItemMessage), total, page, limit } };
}
