import type { GrpcServiceName } from '../contract/grpc-service-name.js';
import type { ResolutionDeps } from './resolution/resolution-deps.js';
import type { OperationTable } from './operation.js';
import { refuseUnstorableInput } from './refuse-unstorable-input.js';

/**
 * Every operation of the internal API that still takes the REST input, grouped by gRPC service (the typed services are
 * src/api's: create-typed-services.ts); none runs on input it could not store (refuseUnstorableInput).
 */
export function createOperations(deps: ResolutionDeps): Partial<Record<GrpcServiceName, OperationTable>> {
  const tables: Partial<Record<GrpcServiceName, OperationTable>> = {};
  return Object.fromEntries(Object.entries(tables).map(([name, table]) => [name, refuseUnstorableInput(table)]));
}
