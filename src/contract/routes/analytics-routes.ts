import { Analytics, AnalyticsQuery } from '../schemas/analytics.js';
import type { RouteSpec } from '../route.js';

/** Analytics route (SPEC part 2, CONTRACT part 7). */
export const analyticsRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/analytics',
    service: 'AnalyticsService',
    rpc: 'GetAnalytics',
    tag: 'analytics',
    summary:
      'Resolution and booking metrics of the organization over the last 7, 30 or 90 days (created_at in (now - N days, now]); default last_30_days.',
    description: 'Answers counts and rates of resolutions and bookings created in the period, computed when asked.',
    query: AnalyticsQuery,
    response: Analytics,
  },
];
