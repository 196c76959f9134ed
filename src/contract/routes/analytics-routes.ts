import { Analytics, AnalyticsQuery, NetworkAdequacy, NetworkAdequacyQuery } from '../schemas/analytics.js';
import type { RouteSpec } from '../route.js';

/** Analytics routes (SPEC part 2, CONTRACT parts 7 and 8). */
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
  {
    method: 'GET',
    path: '/api/v2/analytics/network-adequacy',
    service: 'AnalyticsService',
    rpc: 'GetNetworkAdequacy',
    tag: 'analytics',
    summary:
      'Where the network is thin: for each language, licence region, insurance plan, specialty or modality that resolutions of the period named, providers, zero-result rate, days to the first option and the exclusion codes that cut most.',
    description:
      'Reads the resolutions created in the period (created_at in (now - N days, now], as GET /api/v2/analytics) whose constraints named a value of the dimension, and the providers that have that value now. Covers resolutions made since the service recorded demand (migration 0014).',
    query: NetworkAdequacyQuery,
    response: NetworkAdequacy,
  },
];
