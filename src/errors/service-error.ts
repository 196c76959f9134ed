import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';

/** One problem of a 400 `details` array. */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
}

/** The one error type of the service: a catalogued code plus data; mapped to gRPC and REST at the edges. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds for a Retry-After header (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { field?: string; details?: ErrorDetail[]; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CATALOGUE[code].message, { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.field = opts.field;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }

  /** HTTP status of this error's code. */
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

/** Builds a 400 VALIDATION_ERROR from a list of problems (the first names `field`). */
export function validationError(details: ErrorDetail[]): ServiceError {
  const first = details[0];
  return new ServiceError('VALIDATION_ERROR', first ? `${first.field}: ${first.message}` : undefined, {
    field: first?.field,
    details,
  });
}
