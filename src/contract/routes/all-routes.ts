import type { RouteSpec } from '../route.js';
import { organizationRoutes } from './organization-routes.js';
import { providerRoutes } from './provider-routes.js';
import { providerImportRoutes } from './provider-import-routes.js';

/** Every REST route of the service, in documentation order. */
export const ALL_ROUTES: RouteSpec[] = [...organizationRoutes, ...providerRoutes, ...providerImportRoutes];
