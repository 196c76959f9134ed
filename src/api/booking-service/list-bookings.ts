import type { ListBookingsRequest, ListBookingsResponse } from '../../gen/scheduling/v1/booking_service.js';
import { BookingStatus as BookingStatusMessage } from '../../gen/scheduling/v1/resources.js';
import { ListBookingsQuery } from '../../contract/schemas/booking.js';
import { ServiceError } from '../../errors/service-error.js';
import { readOneSnapshot, type Database } from '../../persistence/database.js';
import type { Config } from '../../config/load-config.js';
import { countBookings, listBookingsBefore, type BookingRow } from '../../persistence/booking-repository.js';
import { findProviderRow } from '../../persistence/provider-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { BOOKING_STATUS_OF, BOOKING_STATUS_REFUSAL, bookingV2Message } from '../messages/booking-message.js';

/** What ListBookings uses: the database, and the public base URL of a booking's confirmation link. */
export interface ListBookingsDeps {
  db: Database;
  config: Pick<Config, 'publicBaseUrl'>;
}

/** The keyset position of a booking in newest-first order: `<created ms>|<id>`. */
function positionOf(b: BookingRow): string {
  return `${b.created_at.getTime()}|${b.id}`;
}

/**
 * ListBookings (GET /api/v2/bookings; GET /api/v1/bookings pages it by number): the organization's bookings newest
 * first, filtered by status and provider, keyset-paginated; `skip` passes over that many after the token's position
 * (AIP-158), and `include_total` adds `total`, the number the filter matches. A provider of another organization is
 * 403 on `providerId`, an unknown one 404.
 */
export async function listBookings(
  deps: ListBookingsDeps,
  caller: Caller,
  request: ListBookingsRequest,
): Promise<ListBookingsResponse> {
  const problems = new RequestProblems();
  const asked = request.bookingStatus ?? BookingStatusMessage.BOOKING_STATUS_UNSPECIFIED;
  let status: BookingRow['status'] | undefined;
  if (asked !== BookingStatusMessage.BOOKING_STATUS_UNSPECIFIED) {
    status = BOOKING_STATUS_OF.get(asked);
    if (status === undefined) problems.add('status', BOOKING_STATUS_REFUSAL);
  }
  const providerId = problems.check('providerId', ListBookingsQuery.shape.providerId, request.providerId);
  const paging = readPageRequest(problems, request);
  const skip = request.skip ?? 0;
  // A negative or fractional count has no meaning as a number of bookings to pass over.
  if (!Number.isInteger(skip) || skip < 0) problems.add('skip', 'must be an integer of at least 0');
  problems.throwIfAny();
  if (providerId !== undefined) {
    const provider = await findProviderRow(deps.db, providerId);
    if (!provider) throw new ServiceError('PROVIDER_NOT_FOUND', undefined, { field: 'providerId' });
    if (provider.organization_id !== caller.organizationId)
      throw new ServiceError('FORBIDDEN', 'The provider belongs to another organization.', { field: 'providerId' });
  }
  const after = paging.position();
  let before: { createdAt: Date; id: string } | undefined;
  if (after !== undefined) {
    const [ms, id] = after.split('|');
    if (!ms || !id || !/^\d+$/.test(ms))
      throw new ServiceError('VALIDATION_ERROR', 'cursor is not one this service issued.', {
        field: 'cursor',
        details: [{ field: 'cursor', code: 'INVALID', message: 'is not a cursor this service issued' }],
      });
    before = { createdAt: new Date(Number(ms)), id };
  }
  const filter = { organizationId: caller.organizationId, status, providerId };
  const page = { before, limit: paging.size + 1, skip };
  // With the total: one snapshot for both, so `total` counts the page's rows (two connections could each see a
  // different moment).
  const { rows, total } = request.includeTotal
    ? await readOneSnapshot(deps.db, async (tx) => ({
        rows: await listBookingsBefore(tx, filter, page),
        total: await countBookings(tx, filter),
      }))
    : { rows: await listBookingsBefore(deps.db, filter, page), total: undefined };
  const answer = pageMessage(rows, paging.size, positionOf, (b) => bookingV2Message(b, deps.config.publicBaseUrl));
  return total === undefined ? answer : { ...answer, total };
}
