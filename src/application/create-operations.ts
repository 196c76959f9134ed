import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import { createResolutionOperations } from './resolution-operations.js';
import { createCalendarOperations } from './calendar-operations.js';
import { createCatalogOperations } from './catalog-operations.js';
import type { OperationTable } from './operation.js';
import { createProviderOperations } from './provider-operations.js';
import { createProviderImportOperations } from './provider-import-operations.js';
import { createRankingPolicyOperations } from './ranking-policy-operations.js';
import { createCareOperations } from './care-operations.js';
import { createBookingOperations } from './booking-operations.js';
import { createInspectorOperations } from './inspector-operations.js';
import { refuseUnstorableInput } from './refuse-unstorable-input.js';

/**
 * Every operation of the internal API that still takes the REST input, grouped by gRPC service (the typed services are
 * src/api's: create-typed-services.ts); none runs on input it could not store (refuseUnstorableInput).
 */
export function createOperations(deps: ResolutionDeps): Partial<Record<GrpcServiceName, OperationTable>> {
  const tables: Partial<Record<GrpcServiceName, OperationTable>> = {
    ProviderService: createProviderOperations(deps),
    CatalogService: createCatalogOperations(deps),
    CalendarService: createCalendarOperations(deps),
    ImportService: createProviderImportOperations(deps),
    ResolutionService: createResolutionOperations(deps),
    RankingPolicyService: createRankingPolicyOperations(deps),
    CareService: createCareOperations(deps),
    BookingService: createBookingOperations(deps),
    InspectorService: createInspectorOperations(deps),
  };
  return Object.fromEntries(Object.entries(tables).map(([name, table]) => [name, refuseUnstorableInput(table)]));
}
