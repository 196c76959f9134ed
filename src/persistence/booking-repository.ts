import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** A bookings row joined with its provider and service names. */
export interface BookingRow {
  id: string;
  platform_id: string;
  organization_id: string;
  provider_id: string;
  service_id: string;
  resolution_id: string | null;
  option_id: string | null;
  source: 'v1' | 'v2';
  status: 'pending' | 'confirmed' | 'cancelled' | 'completed' | 'rescheduled';
  start_at: Date;
  end_at: Date;
  timezone: string;
  customer: { name: string; email: string; timezone?: string | null; lastname?: string | null };
  metadata: Record<string, unknown> | null;
  notes: string | null;
  confirm_token: string | null;
  mode: 'live' | 'test';
  rescheduled_from: string | null;
  rescheduled_to: string | null;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  confirmed_at: Date | null;
  rescheduled_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  provider_name: string;
  provider_username: string | null;
  service_title: string;
  service_duration: number;
}

/** The SELECT that joins names onto bookings rows. */
export const BOOKING_SELECT = `SELECT b.*, p.doc->>'displayName' AS provider_name, p.doc->>'username' AS provider_username,
  s.doc->>'title' AS service_title, (s.doc->>'duration')::int AS service_duration
  FROM bookings b JOIN providers p ON p.id = b.provider_id JOIN services s ON s.id = b.service_id`;

/** Reads one booking (any organization; callers check tenancy). */
export async function findBooking(
  db: Queryable,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<BookingRow | undefined> {
  const r = await db.query(`${BOOKING_SELECT} WHERE b.id = $1${opts.forUpdate ? ' FOR UPDATE OF b' : ''}`, [id]);
  return r.rows[0] as BookingRow | undefined;
}

/** The names joined onto a bookings row (the select list after `b.*`). */
const NAMES = `p.doc->>'displayName' AS provider_name, p.doc->>'username' AS provider_username,
  s.doc->>'title' AS service_title, (s.doc->>'duration')::int AS service_duration`;

/** Inserts a booking row (in the state and with the confirmedAt the booking machine starts it with) and answers it with its names. */
export async function insertBooking(
  tx: Queryable,
  b: {
    id: string;
    platformId: string;
    organizationId: string;
    providerId: string;
    serviceId: string;
    resolutionId: string | null;
    optionId: string | null;
    source: 'v1' | 'v2';
    status: BookingRow['status'];
    confirmedAt: Date | null;
    start: Date;
    end: Date;
    timezone: string;
    customer: BookingRow['customer'];
    metadata: Record<string, unknown> | null;
    notes: string | null;
    confirmToken: string | null;
    mode: 'live' | 'test';
    rescheduledFrom: string | null;
    now: Date;
  },
): Promise<BookingRow> {
  const r = await tx.query({
    name: 'insert-booking',
    text: `WITH b AS (
       INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, option_id, source, status, start_at, end_at, timezone,
         customer, metadata, notes, confirm_token, mode, rescheduled_from, created_at, updated_at, confirmed_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$19,$20) RETURNING *)
     SELECT b.*, ${NAMES} FROM b JOIN providers p ON p.id = b.provider_id JOIN services s ON s.id = b.service_id`,
    values: [
      b.id,
      b.platformId,
      b.organizationId,
      b.providerId,
      b.serviceId,
      b.resolutionId,
      b.optionId,
      b.source,
      b.status,
      b.start,
      b.end,
      b.timezone,
      JSON.stringify(b.customer),
      b.metadata ? JSON.stringify(b.metadata) : null,
      b.notes,
      b.confirmToken,
      b.mode,
      b.rescheduledFrom,
      b.now,
      b.confirmedAt,
    ],
  });
  return r.rows[0] as BookingRow;
}

/**
 * Writes a booking's lifecycle state as the booking machine left it (the caller holds the row lock): the machine's
 * state value becomes `status`, and the context fields the row keeps replace their columns. Answers the row with
 * its names. The only statement that changes a stored booking's status.
 */
export async function writeBookingState(
  tx: Queryable,
  id: string,
  s: {
    status: BookingRow['status'];
    updatedAt: Date;
    confirmedAt: Date | null;
    cancelledAt: Date | null;
    cancelReason: string | null;
    rescheduledAt: Date | null;
    rescheduledTo: string | null;
    completedAt: Date | null;
  },
): Promise<BookingRow> {
  const r = await tx.query({
    name: 'write-booking-state',
    text: `WITH b AS (
       UPDATE bookings SET status = $2, updated_at = $3, cancelled_at = $4, cancel_reason = $5, rescheduled_to = $6,
         confirmed_at = $7, rescheduled_at = $8, completed_at = $9
       WHERE id = $1 RETURNING *)
     SELECT b.*, ${NAMES} FROM b JOIN providers p ON p.id = b.provider_id JOIN services s ON s.id = b.service_id`,
    values: [
      id,
      s.status,
      s.updatedAt,
      s.cancelledAt,
      s.cancelReason,
      s.rescheduledTo,
      s.confirmedAt,
      s.rescheduledAt,
      s.completedAt,
    ],
  });
  return r.rows[0] as BookingRow;
}

/** Filters of a booking list; always one organization's. */
export interface BookingFilter {
  organizationId: string;
  status?: string | undefined;
  providerId?: string | undefined;
}

/** The WHERE clause and arguments of a booking filter (on `bookings b`). */
function bookingWhere(f: BookingFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [f.organizationId];
  let where = 'b.organization_id = $1';
  if (f.status) {
    params.push(f.status);
    where += ` AND b.status = $${params.length}`;
  }
  if (f.providerId) {
    params.push(f.providerId);
    where += ` AND b.provider_id = $${params.length}`;
  }
  return { where, params };
}

/**
 * Lists bookings newest first (created_at, id) strictly before the keyset position `before`, passing over the first
 * `skip` of them, at most `limit` rows.
 */
export async function listBookingsBefore(
  db: Queryable,
  f: BookingFilter,
  page: { before?: { createdAt: Date; id: string } | undefined; limit: number; skip?: number },
): Promise<BookingRow[]> {
  const { where: base, params } = bookingWhere(f);
  const where = [base];
  const orderLimit = keysetPage(
    { where, args: params },
    {
      columns: ['b.created_at', 'b.id'],
      order: 'desc',
      after: page.before && [page.before.createdAt, page.before.id],
      limit: page.limit,
    },
  );
  let offset = '';
  if (page.skip) {
    params.push(page.skip);
    offset = ` OFFSET $${params.length}`;
  }
  const r = await db.query(`${BOOKING_SELECT} WHERE ${where.join(' AND ')} ${orderLimit}${offset}`, params);
  return r.rows as BookingRow[];
}

/** The number of bookings the filter matches. */
export async function countBookings(db: Queryable, f: BookingFilter): Promise<number> {
  const { where, params } = bookingWhere(f);
  const r = await db.query(`SELECT count(*)::int AS n FROM bookings b WHERE ${where}`, params);
  return (r.rows[0] as { n: number } | undefined)?.n ?? 0;
}
