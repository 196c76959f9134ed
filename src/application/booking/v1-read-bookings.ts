import { parseInput } from '../../contract/parse-input.js';
import { ListBookingsV1Query } from '../../contract/schemas/booking.js';
import { listBookingsPage } from '../../persistence/booking-repository.js';
import type { Caller } from '../caller.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingOfCaller } from './booking-of-caller.js';
import { toBookingV1Detail, toBookingV1ListItem } from './booking-views.js';

/** GET /api/v1/bookings: the organization's bookings (v1 and v2), newest first, `{bookings, total, page, limit}`. */
export async function listBookingsV1(deps: ResolutionDeps, caller: Caller, query: unknown) {
  const q = parseInput(ListBookingsV1Query, query);
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  const { rows, total } = await listBookingsPage(
    deps.db,
    { organizationId: caller.organizationId, status: q.status },
    { limit, offset: (page - 1) * limit },
  );
  return { bookings: rows.map(toBookingV1ListItem), total, page, limit };
}

/** GET /api/v1/bookings/:id: the v1 detail shape of any booking of the organization. */
export async function getBookingV1(deps: ResolutionDeps, caller: Caller, id: string) {
  return toBookingV1Detail(await bookingOfCaller(deps.db, caller, id), deps.config.publicBaseUrl);
}
