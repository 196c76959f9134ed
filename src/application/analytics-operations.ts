import { parseInput } from '../contract/parse-input.js';
import { AnalyticsQuery } from '../contract/schemas/analytics.js';
import { readAnalyticsCounts } from '../persistence/analytics-counts.js';
import type { AppDeps } from './app-deps.js';
import type { OperationTable } from './operation.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

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
      audit: { ...AUDIT_ACTIONS.analyticsRead, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(AnalyticsQuery, input.query);
        const period = q.period ?? 'last_30_days';
        const to = deps.clock();
        const from = new Date(to.getTime() - PERIOD_DAYS[period] * DAY_MS);
        const { resolutions: r, bookings } = await readAnalyticsCounts(deps.db, caller.organizationId, from, to);
        return {
          resolutions: {
            total: r.total,
            resolved: r.resolved,
            zeroResults: r.zeroResults,
            avgEvaluatedSlots: round(r.avgEvaluatedSlots, 2),
          },
          bookings,
          conversionRate: r.total === 0 ? 0 : round(r.converted / r.total, 4),
          period,
        };
      },
    },
  };
}
