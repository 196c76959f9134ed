import type { Queryable } from './database.js';
import { LIVE_SERVICE_SQL } from './service-repository.js';
import { claimLiveSql } from './slot-claims.js';

/** What an organization holds, counted for the console's overview. */
export interface OrganizationOverviewCounts {
  providers: { active: number; total: number };
  services: number;
  /** Bookings by status; statuses with none are absent. */
  bookings: Record<string, number>;
  resolutionsLast24h: number;
  activeHolds: number;
  manualReviewOpen: number;
  /** Webhook deliveries by status; statuses with none are absent. */
  webhookDeliveries: Record<string, number>;
  auditEvents: number;
}

/**
 * Counts an organization's providers, services, bookings by status, resolutions of the 24 hours before `now`, active
 * holds, open manual-review entries, webhook deliveries by status and audit events, in one statement (one round trip,
 * one snapshot). Each count is an index scan on the table's organization index; the audit and delivery counts grow
 * with the organization's history (an index-only scan of its rows).
 */
export async function readOrganizationOverviewCounts(
  db: Queryable,
  organizationId: string,
  now: Date,
): Promise<OrganizationOverviewCounts> {
  const r = await db.query({
    name: 'organization-overview-counts',
    text: `SELECT
      (SELECT count(*) FROM providers WHERE organization_id = $1)::int AS providers_total,
      (SELECT count(*) FROM providers WHERE organization_id = $1 AND status = 'active')::int AS providers_active,
      (SELECT count(*) FROM services WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL})::int AS services,
      (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (SELECT status, count(*)::int AS n FROM bookings WHERE organization_id = $1 GROUP BY status) b) AS bookings,
      (SELECT count(*) FROM resolutions WHERE organization_id = $1 AND created_at > $2::timestamptz - interval '24 hours' AND created_at <= $2)::int AS resolutions_24h,
      (SELECT count(*) FROM slot_claims WHERE organization_id = $1 AND active AND kind = 'hold' AND ${claimLiveSql('$2')})::int AS active_holds,
      (SELECT count(*) FROM manual_review_entries WHERE organization_id = $1 AND status = 'open')::int AS review_open,
      (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 GROUP BY status) w) AS deliveries,
      (SELECT count(*) FROM audit_events WHERE organization_id = $1)::int AS audit_events`,
    values: [organizationId, now],
  });
  const row = r.rows[0];
  return {
    providers: { active: row.providers_active, total: row.providers_total },
    services: row.services,
    bookings: row.bookings,
    resolutionsLast24h: row.resolutions_24h,
    activeHolds: row.active_holds,
    manualReviewOpen: row.review_open,
    webhookDeliveries: row.deliveries,
    auditEvents: row.audit_events,
  };
}
