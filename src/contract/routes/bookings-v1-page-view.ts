import type { ListBookingsRequest, ListBookingsResponse } from '../../gen/scheduling/v1/booking_service.js';
import { validationError, type ErrorDetail } from '../../errors/service-error.js';
import type { RestForm } from '../rest-form.js';
import { issuesToDetails } from '../parse-input.js';
import { BookingsV1Page, ListBookingsV1Query } from '../schemas/booking.js';
import { objectToRest } from '../typed-message.js';

/** The v1 page when `page` is left out, and its size when `limit` is (CONTRACT part 5). */
const FIRST_PAGE = 1;
const V1_PAGE_SIZE = 20;

/**
 * GET /api/v1/bookings on ListBookings: v1 pages by number, so page `page` of `limit` is ListBookings with
 * `page_size` = `limit` and `skip` = (`page` - 1) x `limit` (AIP-158), and `include_total` for the v1 `total`. The v1
 * contract bounds `page` (1 to 1,000,000) and `limit` (1 to 100, narrower than v2's 500): a value outside is refused
 * here in the words of its rule, as v1 always answered it.
 */
export const bookingsV1PageView: RestForm = {
  request(input, own) {
    const message = own(input);
    const problems: ErrorDetail[] = [];
    for (const field of ['page', 'limit'] as const) {
      const v = message[field];
      if (v === undefined) continue;
      const r = ListBookingsV1Query.shape[field].safeParse(String(v), { reportInput: true });
      if (!r.success) problems.push(...issuesToDetails(r.error.issues, field));
    }
    if (problems.length > 0) throw validationError(problems);
    const page = (message.page as number | undefined) ?? FIRST_PAGE;
    const limit = (message.limit as number | undefined) ?? V1_PAGE_SIZE;
    const request: ListBookingsRequest = { pageSize: limit, skip: (page - 1) * limit, includeTotal: true };
    if (message.bookingStatus !== undefined)
      request.bookingStatus = message.bookingStatus as ListBookingsRequest['bookingStatus'];
    return request as unknown as Record<string, unknown>;
  },
  response(response, request) {
    const r = response as ListBookingsResponse;
    const asked = request as ListBookingsRequest;
    const limit = asked.pageSize ?? V1_PAGE_SIZE;
    // The v1 page message's fields as typed-message.ts reads them: the REST JSON is made by the v1 schema.
    return objectToRest(BookingsV1Page, 'output', {
      bookings: (r.data ?? []).map((b) => ({
        bookingId: b.id,
        bookingStatus: b.bookingStatus,
        provider: { name: b.provider?.displayName },
        start: b.slot?.start,
        end: b.slot?.end,
      })),
      total: r.total ?? 0,
      page: Math.floor((asked.skip ?? 0) / limit) + FIRST_PAGE,
      limit,
    });
  },
};
