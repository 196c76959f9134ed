import { decodeCursor, encodeCursor } from '../contract/pagination.js';
import { parseInput } from '../contract/parse-input.js';
import { BookingPath, ListBookingsQuery } from '../contract/schemas/booking.js';
import { ServiceError } from '../errors/service-error.js';
import { listBookingsBefore, type BookingRow } from '../persistence/booking-repository.js';
import { findProviderRow } from '../persistence/provider-repository.js';
import type { Caller } from './caller.js';
import { optionalIdempotencyKey } from './idempotency.js';
import { withIdempotency } from './with-idempotency.js';
import type { OperationTable } from './operation.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import { bookingOfCaller } from './booking/booking-of-caller.js';
import { toBookingV2 } from './booking/booking-views.js';
import { cancelBookingV1 } from './booking/v1-cancel-booking.js';
import { confirmBookingV1 } from './booking/v1-confirm-link.js';
import { createBookingV1 } from './booking/v1-create-booking.js';
import { getBookingV1, listBookingsV1 } from './booking/v1-read-bookings.js';
import { rescheduleBookingV1 } from './booking/v1-reschedule-booking.js';
import { listSlotsV1 } from './booking/v1-slots.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** The keyset position of a booking in newest-first order: `<created ms>|<id>`. */
function positionOf(b: BookingRow): string {
  return `${b.created_at.getTime()}|${b.id}`;
}

/** GET /api/v2/bookings: the organization's bookings newest first, filtered by status and provider, keyset-paginated. */
async function listBookingsV2(deps: ResolutionDeps, caller: Caller, query: unknown) {
  const q = parseInput(ListBookingsQuery, query);
  const limit = q.limit ?? 50;
  if (q.providerId) {
    const provider = await findProviderRow(deps.db, q.providerId);
    if (!provider) throw new ServiceError('PROVIDER_NOT_FOUND', undefined, { field: 'providerId' });
    if (provider.organization_id !== caller.organizationId)
      throw new ServiceError('FORBIDDEN', 'The provider belongs to another organization.', { field: 'providerId' });
  }
  const after = decodeCursor(q.cursor);
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
    { organizationId: caller.organizationId, status: q.status, providerId: q.providerId },
    { before, limit: limit + 1 },
  );
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(toBookingV2),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(positionOf(last)) : null,
  };
}

/** BookingService operations: v2 booking reads and the v1 direct booking path (SPEC 4.4, CONTRACT part 5). */
export function createBookingOperations(deps: ResolutionDeps): OperationTable {
  const pathId = (params: Record<string, string>) => parseInput(BookingPath, params).id;
  return {
    ListBookings: {
      audit: { ...AUDIT_ACTIONS.bookingList, kind: 'read' },
      handler: (caller, input) => listBookingsV2(deps, caller, input.query),
    },
    GetBooking: {
      audit: { ...AUDIT_ACTIONS.bookingRead, kind: 'read' },
      handler: async (caller, input) => toBookingV2(await bookingOfCaller(deps.db, caller, pathId(input.params))),
    },
    ListSlotsV1: {
      audit: { ...AUDIT_ACTIONS.slotList, kind: 'read' },
      handler: (caller, input) => listSlotsV1(deps, caller, input.query),
    },
    CreateBookingV1: {
      audit: { ...AUDIT_ACTIONS.bookingCreate, kind: 'write' },
      async handler(caller, input) {
        const key = optionalIdempotencyKey(input.headers);
        if (!key) return createBookingV1(deps, caller, input.body);
        return withIdempotency(
          deps.idempotency,
          caller,
          'v1-bookings',
          key,
          input.body,
          (record) => createBookingV1(deps, caller, input.body, record),
          { durable: true },
        );
      },
    },
    ListBookingsV1: {
      audit: { ...AUDIT_ACTIONS.bookingList, kind: 'read' },
      handler: (caller, input) => listBookingsV1(deps, caller, input.query),
    },
    GetBookingV1: {
      audit: { ...AUDIT_ACTIONS.bookingRead, kind: 'read' },
      handler: (caller, input) => getBookingV1(deps, caller, pathId(input.params)),
    },
    RescheduleBookingV1: {
      audit: { ...AUDIT_ACTIONS.bookingReschedule, kind: 'write' },
      async handler(caller, input) {
        const id = pathId(input.params);
        const key = optionalIdempotencyKey(input.headers);
        if (!key) return rescheduleBookingV1(deps, caller, id, input.body);
        return withIdempotency(
          deps.idempotency,
          caller,
          `v1-reschedule:${id}`,
          key,
          input.body ?? {},
          (record) => rescheduleBookingV1(deps, caller, id, input.body, record),
          { durable: true },
        );
      },
    },
    CancelBookingV1: {
      audit: { ...AUDIT_ACTIONS.bookingCancel, kind: 'write' },
      async handler(caller, input) {
        const id = pathId(input.params);
        const key = optionalIdempotencyKey(input.headers);
        if (!key) return cancelBookingV1(deps, caller, id, input.body);
        return withIdempotency(
          deps.idempotency,
          caller,
          `v1-cancel:${id}`,
          key,
          input.body ?? {},
          (record) => cancelBookingV1(deps, caller, id, input.body, record),
          { durable: true },
        );
      },
    },
    ConfirmBookingV1: {
      // The e-mailed link carries no API key: its token is the credential.
      auth: 'none',
      audit: { ...AUDIT_ACTIONS.bookingConfirm, kind: 'write-if-changed' },
      handler: (caller, input) => confirmBookingV1(deps, caller, input),
    },
  };
}
