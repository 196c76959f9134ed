import type { RouteSpec } from '../route.js';
import { organizationRoutes } from './organization-routes.js';

/** Every REST route of the service, in documentation order. */
export const ALL_ROUTES: RouteSpec[] = [...organizationRoutes];
