import type { ListBookingsRequest, ListBookingsResponse } from '../../gen/scheduling/v1/booking_service.js';
import { BookingStatus as BookingStatusMessage } from '../../gen/scheduling/v1/resources.js';
import { ListBookingsQuery } from '../../contract/schemas/booking.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Database } from '../../persistence/database.js';
import { listBookingsBefore, type BookingRow } from '../../persistence/booking-repository.js';
import { findProviderRow } from '../../persistence/provider-repository.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { pageMessage, readPageRequest } from '../page-request.js';
import { BOOKING_STATUS_OF, BOOKING_STATUS_REFUSAL, bookingV2Message } from '../messages/booking-message.js';

/** What ListBookings uses. */
export interface ListBookingsDeps {
  db: Database;
}

/** The keyset position of a booking in newest-first order: `<created ms>|<id>`. */
function positionOf(b: BookingRow): string {
  return `${b.created_at.getTime()}|${b.id}`;
}

/**
 * ListBookings (GET /api/v2/bookings): the organization's bookings newest first, filtered by status and provider,
 * keyset-paginated. A provider of another organization is 403 on `providerId`, an unknown one 404.
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
  const rows = await listBookingsBefore(
    deps.db,
    { organizationId: caller.organizationId, status, providerId },
    { before, limit: paging.size + 1 },
  );
  return pageMessage(rows, paging.size, positionOf, bookingV2Message);
}
