import { typedOperation, type OperationTable } from '../../application/operation.js';
import { AUDIT_ACTIONS } from '../../application/audit/audit-actions.js';
import { listBookings, type ListBookingsDeps } from './list-bookings.js';
import { getBooking, type GetBookingDeps } from './get-booking.js';
import { listSlots, type ListSlotsDeps } from './list-slots.js';
import { bookSlot, type BookSlotDeps } from './book-slot.js';
import { confirmBooking, type ConfirmBookingDeps } from './confirm-booking.js';
import { rescheduleBooking, type RescheduleBookingDeps } from './reschedule-booking.js';
import { cancelBooking, type CancelBookingDeps } from './cancel-booking.js';

/** What the BookingService RPCs use together. */
export type BookingServiceDeps = ListBookingsDeps &
  GetBookingDeps &
  ListSlotsDeps &
  BookSlotDeps &
  ConfirmBookingDeps &
  RescheduleBookingDeps &
  CancelBookingDeps;

/**
 * BookingService (SPEC 4.4, CONTRACT part 5): booking reads, and the direct path (slots, book, confirm by the
 * e-mailed link, reschedule, cancel), each RPC with what it records in the audit log. v1 REST reads map onto
 * ListBookings and GetBooking in the gateway. The e-mailed confirmation link takes no API key: its token is the
 * credential.
 */
export function bookingService(deps: BookingServiceDeps): OperationTable {
  return {
    ListBookings: typedOperation({ ...AUDIT_ACTIONS.bookingList, kind: 'read' }, (caller, r) =>
      listBookings(deps, caller, r),
    ),
    GetBooking: typedOperation({ ...AUDIT_ACTIONS.bookingRead, kind: 'read' }, (caller, r) =>
      getBooking(deps, caller, r),
    ),
    ListSlots: typedOperation({ ...AUDIT_ACTIONS.slotList, kind: 'read' }, (caller, r) => listSlots(deps, caller, r)),
    BookSlot: typedOperation({ ...AUDIT_ACTIONS.bookingCreate, kind: 'write' }, (caller, r, call) =>
      bookSlot(deps, caller, r, call),
    ),
    RescheduleBooking: typedOperation({ ...AUDIT_ACTIONS.bookingReschedule, kind: 'write' }, (caller, r, call) =>
      rescheduleBooking(deps, caller, r, call),
    ),
    CancelBooking: typedOperation({ ...AUDIT_ACTIONS.bookingCancel, kind: 'write' }, (caller, r, call) =>
      cancelBooking(deps, caller, r, call),
    ),
    ConfirmBooking: typedOperation(
      { ...AUDIT_ACTIONS.bookingConfirm, kind: 'write-if-changed' },
      (caller, r, call) => confirmBooking(deps, caller, r, call),
      { auth: 'none' },
    ),
  };
}
