import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { listBookings, type ListBookingsDeps } from './list-bookings.js';
import { getBooking, type GetBookingDeps } from './get-booking.js';
import { listSlotsV1, type ListSlotsV1Deps } from './list-slots-v1.js';
import { createBookingV1, type CreateBookingV1Deps } from './create-booking-v1.js';
import { listBookingsV1, type ListBookingsV1Deps } from './list-bookings-v1.js';
import { getBookingV1, type GetBookingV1Deps } from './get-booking-v1.js';
import { confirmBookingV1, type ConfirmBookingV1Deps } from './confirm-booking-v1.js';
import { rescheduleBookingV1, type RescheduleBookingV1Deps } from './reschedule-booking-v1.js';
import { cancelBookingV1, type CancelBookingV1Deps } from './cancel-booking-v1.js';

/** What the BookingService RPCs use together. */
export type BookingServiceDeps = ListBookingsDeps &
  GetBookingDeps &
  ListSlotsV1Deps &
  CreateBookingV1Deps &
  ListBookingsV1Deps &
  GetBookingV1Deps &
  ConfirmBookingV1Deps &
  RescheduleBookingV1Deps &
  CancelBookingV1Deps;

/**
 * BookingService (SPEC 4.4, CONTRACT part 5): v2 booking reads and the v1 direct booking path, each RPC with what it
 * records in the audit log. The e-mailed confirmation link takes no API key: its token is the credential.
 */
export function bookingService(deps: BookingServiceDeps): OperationTable {
  return {
    ListBookings: typedOperation({ ...AUDIT_ACTIONS.bookingList, kind: 'read' }, (caller, r) =>
      listBookings(deps, caller, r),
    ),
    GetBooking: typedOperation({ ...AUDIT_ACTIONS.bookingRead, kind: 'read' }, (caller, r) =>
      getBooking(deps, caller, r),
    ),
    ListSlotsV1: typedOperation({ ...AUDIT_ACTIONS.slotList, kind: 'read' }, (caller, r) =>
      listSlotsV1(deps, caller, r),
    ),
    CreateBookingV1: typedOperation({ ...AUDIT_ACTIONS.bookingCreate, kind: 'write' }, (caller, r, call) =>
      createBookingV1(deps, caller, r, call),
    ),
    ListBookingsV1: typedOperation({ ...AUDIT_ACTIONS.bookingList, kind: 'read' }, (caller, r) =>
      listBookingsV1(deps, caller, r),
    ),
    GetBookingV1: typedOperation({ ...AUDIT_ACTIONS.bookingRead, kind: 'read' }, (caller, r) =>
      getBookingV1(deps, caller, r),
    ),
    RescheduleBookingV1: typedOperation({ ...AUDIT_ACTIONS.bookingReschedule, kind: 'write' }, (caller, r, call) =>
      rescheduleBookingV1(deps, caller, r, call),
    ),
    CancelBookingV1: typedOperation({ ...AUDIT_ACTIONS.bookingCancel, kind: 'write' }, (caller, r, call) =>
      cancelBookingV1(deps, caller, r, call),
    ),
    ConfirmBookingV1: typedOperation(
      { ...AUDIT_ACTIONS.bookingConfirm, kind: 'write-if-changed' },
      (caller, r, call) => confirmBookingV1(deps, caller, r, call),
      { auth: 'none' },
    ),
  };
}
