import { parseInput } from '../contract/parse-input.js';
import { AnalyticsQuery } from '../contract/schemas/analytics.js';
import type { AppDeps } from './app-deps.js';
import type { OperationTable } from './operation.js';

const PERIOD_DAYS = { last_7_days: 7, last_30_days: 30, last_90_days: 90 } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

const round = (n: number, decimals: number) => Math.round(n * 10 ** decimals) / 10 ** decimals;

/**
 * AnalyticsService operations: resolution and booking metrics over a period ending now (SPEC part 2, CONTRACT part 7).
 * Resolutions count under the status they were made with; bookings count under their current status, and
 * `confirmed` includes completed bookings (every completed booking was confirmed first).
 */
export function createAnalyticsOperations(deps: AppDeps): OperationTable {
  return {
    GetAnalytics: {
      audit: { action: 'analytics.read', resourceType: 'analytics', kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(AnalyticsQuery, input.query);
        const period = q.period ?? 'last_30_days';
        const to = deps.clock();
        const from = new Date(to.getTime() - PERIOD_DAYS[period] * DAY_MS);
        const args = [caller.organizationId, from, to];
        const [res, book] = await Promise.all([
          deps.db.query(
            `SELECT count(*)::int AS total,
                    count(*) FILTER (WHERE r.status = 'resolved')::int AS resolved,
                    count(*) FILTER (WHERE r.status = 'zero_results')::int AS zero_results,
                    coalesce(avg(r.evaluated_slots), 0)::float8 AS avg_evaluated_slots,
                    count(*) FILTER (WHERE r.booking_id IS NOT NULL
                      OR EXISTS (SELECT 1 FROM bookings b WHERE b.resolution_id = r.id AND b.organization_id = r.organization_id))::int AS converted
             FROM resolutions r WHERE r.organization_id = $1 AND r.created_at > $2 AND r.created_at <= $3`, args),
          deps.db.query(
            `SELECT count(*)::int AS total,
                    count(*) FILTER (WHERE status IN ('confirmed', 'completed'))::int AS confirmed,
                    count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
                    count(*) FILTER (WHERE status = 'rescheduled')::int AS rescheduled
             FROM bookings WHERE organization_id = $1 AND created_at > $2 AND created_at <= $3`, args),
        ]);
        const r = res.rows[0] as { total: number; resolved: number; zero_results: number; avg_evaluated_slots: number; converted: number };
        const b = book.rows[0] as { total: number; confirmed: number; cancelled: number; rescheduled: number };
        return {
          resolutions: { total: r.total, resolved: r.resolved, zeroResults: r.zero_results, avgEvaluatedSlots: round(r.avg_evaluated_slots, 2) },
          bookings: { total: b.total, confirmed: b.confirmed, cancelled: b.cancelled, rescheduled: b.rescheduled },
          conversionRate: r.total === 0 ? 0 : round(r.converted / r.total, 4),
          period,
        };
      },
    },
  };
}
