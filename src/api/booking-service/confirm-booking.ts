import type { ConfirmBookingRequest, ConfirmBookingResponse } from '../../gen/scheduling/v1/booking_service.js';
import { ConfirmBookingV1Query } from '../../contract/schemas/booking.js';
import type { Caller } from '../../application/caller.js';
import { answer, type TypedAnswer, type TypedCall } from '../../application/operation.js';
import type { ResolutionDeps } from '../../application/resolution/resolution-deps.js';
import type { Config } from '../../config/load-config.js';
import { confirmationPage, confirmBookingV1 as confirmByLink } from '../../application/booking/v1-confirm-link.js';
import { given, RequestProblems } from '../request-problems.js';
import { bookingV2Message } from '../messages/booking-message.js';

/**
 * What ConfirmBooking uses: the booking's ledger (its event outbox and audit log), its actor, the clock, and the public
 * base URL of a booking's confirmation link.
 */
export type ConfirmBookingDeps = Pick<ResolutionDeps, 'db' | 'actors' | 'clock'> & {
  config: Pick<Config, 'publicBaseUrl'>;
};

/**
 * ConfirmBooking (GET /api/v1/bookings/:id/confirm?token=…, the e-mailed link; no API key, the token is the
 * credential): confirms a pending booking (v1-confirm-link.ts) and answers `html_page`, the small page a browser
 * shows, or, when the call accepts `application/json`, the booking's id and status.
 */
export async function confirmBooking(
  deps: ConfirmBookingDeps,
  caller: Caller,
  request: ConfirmBookingRequest,
  call: TypedCall = { headers: {} },
): Promise<ConfirmBookingResponse | TypedAnswer<ConfirmBookingResponse>> {
  const problems = new RequestProblems();
  const token = problems.check('token', ConfirmBookingV1Query.shape.token, given(request.token));
  problems.throwIfAny();
  // Any id that names no booking is the same 404 as a wrong token: the link reveals nothing without its token.
  const row = await confirmByLink(deps, caller, { id: request.id ?? '', token: token! });
  if ((call.headers.accept ?? '').includes('application/json')) {
    // The id and the status only: a token holder is not a key of the organization (ConfirmBookingResponse).
    const { id, bookingStatus } = bookingV2Message(row, deps.config.publicBaseUrl);
    return { bookingId: id, bookingStatus };
  }
  const page: ConfirmBookingResponse = { htmlPage: confirmationPage(row) };
  return answer(page, { 'content-type': 'text/html; charset=utf-8' }) as TypedAnswer<ConfirmBookingResponse>;
}
