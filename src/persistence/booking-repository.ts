import type { Queryable } from './database.js';

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
export async function findBooking(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<BookingRow | undefined> {
  const r = await db.query(`${BOOKING_SELECT} WHERE b.id = $1${opts.forUpdate ? ' FOR UPDATE OF b' : ''}`, [id]);
  return r.rows[0] as BookingRow | undefined;
}

/** The names joined onto a bookings row (the select list after `b.*`). */
const NAMES = `p.doc->>'displayName' AS provider_name, p.doc->>'username' AS provider_username,
  s.doc->>'title' AS service_title, (s.doc->>'duration')::int AS service_duration`;

/** Inserts a booking row and answers it with its names. */
export async function insertBooking(tx: Queryable, b: {
  id: string; platformId: string; organizationId: string; providerId: string; serviceId: string; resolutionId: string | null; optionId: string | null;
  source: 'v1' | 'v2'; status: 'pending' | 'confirmed'; start: Date; end: Date; timezone: string; customer: BookingRow['customer'];
  metadata: Record<string, unknown> | null; notes: string | null; confirmToken: string | null; mode: 'live' | 'test'; rescheduledFrom: string | null; now: Date;
}): Promise<BookingRow> {
  const r = await tx.query({
    name: 'insert-booking',
    text: `WITH b AS (
       INSERT INTO bookings (id, platform_id, organization_id, provider_id, service_id, resolution_id, option_id, source, status, start_at, end_at, timezone,
         customer, metadata, notes, confirm_token, mode, rescheduled_from, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$19) RETURNING *)
     SELECT b.*, ${NAMES} FROM b JOIN providers p ON p.id = b.provider_id JOIN services s ON s.id = b.service_id`,
    values: [b.id, b.platformId, b.organizationId, b.providerId, b.serviceId, b.resolutionId, b.optionId, b.source, b.status, b.start, b.end, b.timezone,
      JSON.stringify(b.customer), b.metadata ? JSON.stringify(b.metadata) : null, b.notes, b.confirmToken, b.mode, b.rescheduledFrom, b.now],
  });
  return r.rows[0] as BookingRow;
}

/** Moves a booking to a new status (the caller holds its row lock) and answers it with its names. */
export async function updateBookingStatus(tx: Queryable, id: string, u: { status: BookingRow['status']; now: Date; cancelledAt?: Date; cancelReason?: string | null; rescheduledTo?: string }): Promise<BookingRow> {
  const r = await tx.query({
    name: 'update-booking-status',
    text: `WITH b AS (
       UPDATE bookings SET status = $2, updated_at = $3, cancelled_at = COALESCE($4, cancelled_at),
         cancel_reason = CASE WHEN $4::timestamptz IS NULL THEN cancel_reason ELSE $5 END, rescheduled_to = COALESCE($6, rescheduled_to)
       WHERE id = $1 RETURNING *)
     SELECT b.*, ${NAMES} FROM b JOIN providers p ON p.id = b.provider_id JOIN services s ON s.id = b.service_id`,
    values: [id, u.status, u.now, u.cancelledAt ?? null, u.cancelReason ?? null, u.rescheduledTo ?? null],
  });
  return r.rows[0] as BookingRow;
}
