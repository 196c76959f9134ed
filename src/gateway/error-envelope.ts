import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import type { ServiceError } from '../errors/service-error.js';

/** Renders the v2 error body (CONTRACT part 1). */
export function v2ErrorBody(err: ServiceError, requestId: string) {
  const entry = ERROR_CATALOGUE[err.code];
  return {
    error: {
      code: err.code,
      message: err.message,
      status: err.status,
      requestId,
      ...(err.field !== undefined ? { field: err.field } : {}),
      recoverable: entry.recoverable,
      ...(entry.suggestedAction !== undefined ? { suggestedAction: entry.suggestedAction } : {}),
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
  };
}

/** Renders the v1 error body `{error: {code, message, status}}`. */
export function v1ErrorBody(err: ServiceError) {
  return { error: { code: err.code, message: err.message, status: err.status } };
}
