import type { GrpcServiceName } from '../grpc/service-registry.js';
import type { AppDeps } from './app-deps.js';
import { createApiKeyOperations } from './api-key-operations.js';
import type { OperationTable } from './operation.js';
import { createOrganizationOperations } from './organization-operations.js';
import { createProviderOperations } from './provider-operations.js';
import { createProviderImportOperations } from './provider-import-operations.js';

/** Every operation of the internal API, grouped by gRPC service. */
export function createOperations(deps: AppDeps): Partial<Record<GrpcServiceName, OperationTable>> {
  return {
    OrganizationService: createOrganizationOperations(deps),
    ApiKeyService: createApiKeyOperations(deps),
    ProviderService: createProviderOperations(deps),
    ImportService: createProviderImportOperations(deps),
  };
}
