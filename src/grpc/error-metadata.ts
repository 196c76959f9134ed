import { Metadata, status as GrpcStatus, type ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode } from '../errors/error-catalogue.js';
import { ServiceError, type ErrorDetail } from '../errors/service-error.js';

/** The gRPC status each HTTP status of the error catalogue travels as. */
export const HTTP_TO_GRPC: Readonly<Record<number, GrpcStatus>> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  408: GrpcStatus.DEADLINE_EXCEEDED,
  409: GrpcStatus.ABORTED,
  410: GrpcStatus.FAILED_PRECONDITION,
  413: GrpcStatus.INVALID_ARGUMENT,
  422: GrpcStatus.FAILED_PRECONDITION,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  503: GrpcStatus.UNAVAILABLE,
};

/** What gRPC carries as a text metadata value: printable ASCII (grpc-js throws on anything else). */
const TEXT_VALUE = /^[\x20-\x7e]*$/;
/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The text with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
const wellFormed = (s: string) => s.replace(LONE_SURROGATE, '\ufffd');

/**
 * Encodes a ServiceError as a gRPC status with the contract's code and data in trailing metadata. A field that is not
 * printable ASCII (a body key as the client sent it) travels as UTF-8 in `error-field-bin`; the message is made
 * well-formed (a lone surrogate becomes U+FFFD), since grpc-js percent-encodes it and a lone surrogate cannot be.
 */
export function encodeServiceError(err: ServiceError, extraTrailers?: Metadata): Partial<GrpcServiceError> {
  const md = extraTrailers?.clone() ?? new Metadata();
  md.set('error-code', err.code);
  if (err.field && TEXT_VALUE.test(err.field)) md.set('error-field', err.field);
  else if (err.field) md.set('error-field-bin', Buffer.from(wellFormed(err.field), 'utf8'));
  if (err.details) md.set('error-details-bin', Buffer.from(JSON.stringify(err.details)));
  if (err.retryAfter !== undefined) md.set('retry-after', String(err.retryAfter));
  return { code: HTTP_TO_GRPC[err.status] ?? GrpcStatus.UNKNOWN, details: wellFormed(err.message), metadata: md };
}

/** Decodes a gRPC error back into a ServiceError (client side: gateway and internal callers). */
export function decodeServiceError(err: GrpcServiceError): ServiceError {
  const md = err.metadata;
  const code = String(md?.get('error-code')[0] ?? '');
  if (isErrorCode(code)) {
    const detailsRaw = md.get('error-details-bin')[0];
    const details = detailsRaw
      ? (JSON.parse(Buffer.from(detailsRaw as Buffer).toString('utf8')) as ErrorDetail[])
      : undefined;
    const field = md.get('error-field')[0] ?? (md.get('error-field-bin')[0] as Buffer | undefined)?.toString('utf8');
    const retryAfter = md.get('retry-after')[0];
    return new ServiceError(code, err.details || ERROR_CATALOGUE[code].message, {
      field: field === undefined ? undefined : String(field),
      details,
      retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
    });
  }
  // No contract code in the trailers: the failure happened in the transport, not in an operation.
  if (TRANSPORT_FAILURES.has(err.code))
    return new ServiceError(
      'SERVICE_UNAVAILABLE',
      `The internal API did not answer (${GrpcStatus[err.code]}: ${err.details}).`,
      { retryAfter: 1, cause: err },
    );
  return new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
}

/**
 * gRPC statuses that, without a contract error code, mean the call never got a proper answer: the server was
 * unreachable or shutting down, the deadline passed, a limit of the transport was hit, or the stream was cancelled
 * or reset. A retry may well succeed, so they are 503 SERVICE_UNAVAILABLE (recoverable), never 500.
 */
const TRANSPORT_FAILURES = new Set<number>([
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.CANCELLED,
  GrpcStatus.ABORTED,
]);
