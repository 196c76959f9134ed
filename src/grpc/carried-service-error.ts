import type { Metadata } from '@grpc/grpc-js';
import type { ServiceError } from '../errors/service-error.js';

/** The ServiceError each encoded status's trailers were made from (a status answered in-process reads it back). */
const carried = new WeakMap<Metadata, ServiceError>();

/**
 * Returns an encoded error status unchanged, remembering the ServiceError it was encoded from: a call answered
 * in-process (in-process-calls.ts) hands that error to its caller as it is, cause included, instead of decoding it
 * back from the trailers. Over the network the trailers are all that travels.
 */
export function carryServiceError<S extends { metadata?: Metadata | null }>(status: S, error: ServiceError): S {
  if (status.metadata) carried.set(status.metadata, error);
  return status;
}

/** The ServiceError a status's trailers were encoded from, when carryServiceError recorded one. */
export function carriedServiceError(metadata: Metadata | null | undefined): ServiceError | undefined {
  return metadata ? carried.get(metadata) : undefined;
}
