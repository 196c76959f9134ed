import type { Queryable } from './database.js';
import { resolvedOutcomeSql } from './resolution-repository.js';

/** An organization's resolutions and bookings created in a period, counted for analytics. */
export interface AnalyticsCounts {
  resolutions: {
    total: number;
    resolved: number;
    zeroResults: number;
    /** Mean of the slots each resolution evaluated; 0 without resolutions. */
    avgEvaluatedSlots: number;
    /** Resolutions that led to a booking (confirmed through them or naming them). */
    converted: number;
  };
  /** Bookings by their current status; `confirmed` includes the completed ones. */
  bookings: { total: number; confirmed: number; cancelled: number; rescheduled: number };
}

/** Counts an organization's resolutions and bookings created after `from` and up to `to` (two statements, run together). */
export async function readAnalyticsCounts(
  db: Queryable,
  organizationId: string,
  from: Date,
  to: Date,
): Promise<AnalyticsCounts> {
  const args = [organizationId, from, to];
  const [res, book] = await Promise.all([
    db.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE ${resolvedOutcomeSql('r')})::int AS resolved,
              count(*) FILTER (WHERE NOT ${resolvedOutcomeSql('r')})::int AS zero_results,
              coalesce(avg(r.evaluated_slots), 0)::float8 AS avg_evaluated_slots,
              count(*) FILTER (WHERE r.booking_id IS NOT NULL
                OR EXISTS (SELECT 1 FROM bookings b WHERE b.resolution_id = r.id AND b.organization_id = r.organization_id))::int AS converted
       FROM resolutions r WHERE r.organization_id = $1 AND r.created_at > $2 AND r.created_at <= $3`,
      args,
    ),
    db.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status IN ('confirmed', 'completed'))::int AS confirmed,
              count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
              count(*) FILTER (WHERE status = 'rescheduled')::int AS rescheduled
       FROM bookings WHERE organization_id = $1 AND created_at > $2 AND created_at <= $3`,
      args,
    ),
  ]);
  const r = res.rows[0] as {
    total: number;
    resolved: number;
    zero_results: number;
    avg_evaluated_slots: number;
    converted: number;
  };
  const b = book.rows[0] as { total: number; confirmed: number; cancelled: number; rescheduled: number };
  return {
    resolutions: {
      total: r.total,
      resolved: r.resolved,
      zeroResults: r.zero_results,
      avgEvaluatedSlots: r.avg_evaluated_slots,
      converted: r.converted,
    },
    bookings: { total: b.total, confirmed: b.confirmed, cancelled: b.cancelled, rescheduled: b.rescheduled },
  };
}
