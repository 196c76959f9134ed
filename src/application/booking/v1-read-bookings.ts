import { parseInput } from '../../contract/parse-input.js';
import { ListBookingsV1Query } from '../../contract/schemas/booking.js';
import { BOOKING_SELECT, type BookingRow } from '../../persistence/booking-repository.js';
import type { Caller } from '../caller.js';
import type { ResolutionDeps } from '../resolution/resolution-deps.js';
import { bookingOfCaller } from './booking-of-caller.js';
import { toBookingV1Detail, toBookingV1ListItem } from './booking-views.js';

/** GET /api/v1/bookings: the organization's bookings (v1 and v2), newest first, `{bookings, total, page, limit}`. */
export async function listBookingsV1(deps: ResolutionDeps, caller: Caller, query: unknown) {
  const q = parseInput(ListBookingsV1Query, query);
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  const params: unknown[] = [caller.organizationId];
  let where = 'b.organization_id = $1';
  if (q.status) {
    params.push(q.status);
    where += ` AND b.status = $${params.length}`;
  }
  const [rows, count] = await Promise.all([
    deps.db.query(`${BOOKING_SELECT} WHERE ${where} ORDER BY b.created_at DESC, b.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, (page - 1) * limit]),
    deps.db.query(`SELECT count(*)::int AS n FROM bookings b WHERE ${where}`, params),
  ]);
  return { bookings: (rows.rows as BookingRow[]).map(toBookingV1ListItem), total: count.rows[0]?.n ?? 0, page, limit };
}

/** GET /api/v1/bookings/:id: the v1 detail shape of any booking of the organization. */
export async function getBookingV1(deps: ResolutionDeps, caller: Caller, id: string) {
  return toBookingV1Detail(await bookingOfCaller(deps.db, caller, id), deps.config.publicBaseUrl);
}
