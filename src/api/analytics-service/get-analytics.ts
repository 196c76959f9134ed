import type { GetAnalyticsRequest, GetAnalyticsResponse } from '../../gen/scheduling/v1/analytics_service.js';
import type { Database } from '../../persistence/database.js';
import { readAnalyticsCounts } from '../../persistence/analytics-counts.js';
import type { Caller } from '../../application/caller.js';
import { RequestProblems } from '../request-problems.js';
import { analyticsPeriodWindow, readAnalyticsPeriod } from './analytics-period.js';
import { rounded } from './rounded.js';

/** What GetAnalytics uses. */
export interface GetAnalyticsDeps {
  db: Database;
  clock: () => Date;
}

/**
 * GetAnalytics: the organization's resolutions and bookings created in the period ending now (SPEC part 2, CONTRACT
 * part 7). Resolutions count under the status they were made with; bookings under their current status, and
 * `confirmed` includes completed bookings (every completed booking was confirmed first).
 */
export async function getAnalytics(
  deps: GetAnalyticsDeps,
  caller: Caller,
  request: GetAnalyticsRequest,
): Promise<GetAnalyticsResponse> {
  const problems = new RequestProblems();
  const asked = readAnalyticsPeriod(problems, request.analyticsPeriod);
  problems.throwIfAny();
  const { period, from, to } = analyticsPeriodWindow(asked, deps.clock());
  const { resolutions: r, bookings: b } = await readAnalyticsCounts(deps.db, caller.organizationId, from, to);
  return {
    analytics: {
      resolutions: {
        total: r.total,
        resolved: r.resolved,
        zeroResults: r.zeroResults,
        avgEvaluatedSlots: rounded(r.avgEvaluatedSlots, 2),
      },
      bookings: { total: b.total, confirmed: b.confirmed, cancelled: b.cancelled, rescheduled: b.rescheduled },
      conversionRate: r.total === 0 ? 0 : rounded(r.converted / r.total, 4),
      period,
    },
  };
}
