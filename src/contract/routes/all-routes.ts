import type { RouteSpec } from '../route.js';
import { calendarRoutes } from './calendar-routes.js';
import { catalogRoutes } from './catalog-routes.js';
import { organizationRoutes } from './organization-routes.js';
import { providerRoutes } from './provider-routes.js';
import { providerImportRoutes } from './provider-import-routes.js';
import { resolutionRoutes } from './resolution-routes.js';
import { auditRoutes } from './audit-routes.js';
import { rankingPolicyRoutes } from './ranking-policy-routes.js';
import { careRoutes } from './care-routes.js';
import { analyticsRoutes } from './analytics-routes.js';
import { bookingRoutes } from './booking-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { eventRoutes } from './event-routes.js';
import { inspectorRoutes } from './inspector-routes.js';

/** Every REST route of the service, in documentation order. */
export const ALL_ROUTES: RouteSpec[] = [
  ...organizationRoutes,
  ...providerRoutes,
  ...catalogRoutes,
  ...calendarRoutes,
  ...providerImportRoutes,
  ...resolutionRoutes,
  ...bookingRoutes,
  ...rankingPolicyRoutes,
  ...careRoutes,
  ...analyticsRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...inspectorRoutes,
  ...auditRoutes,
];
