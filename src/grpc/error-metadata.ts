import { Metadata, status as GrpcStatus, type ServiceError as GrpcServiceError } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from '../errors/error-catalogue.js';
import { ServiceError, type ErrorDetail } from '../errors/service-error.js';
import type { Any } from '../gen/google/protobuf/any.js';
import { Status } from '../gen/google/rpc/status.js';
import { BadRequest, ErrorInfo, RetryInfo } from '../gen/google/rpc/error_details.js';

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

/** The `ErrorInfo.domain` of every contract error: the catalogue's codes are reasons within this domain. */
export const ERROR_DOMAIN = 'scheduling.example';

/** The trailer that carries the encoded `google.rpc.Status` (the gRPC rich error model). */
export const STATUS_DETAILS_TRAILER = 'grpc-status-details-bin';

/** The `Any.type_url` of each detail message the service sends. */
const TYPE_URL = {
  errorInfo: 'type.googleapis.com/google.rpc.ErrorInfo',
  badRequest: 'type.googleapis.com/google.rpc.BadRequest',
  retryInfo: 'type.googleapis.com/google.rpc.RetryInfo',
} as const;

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The text with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
const wellFormed = (s: string) => s.replace(LONE_SURROGATE, '\ufffd');

/**
 * The `google.rpc.Status` of a ServiceError: the gRPC code, the message, and as details an `ErrorInfo` (reason: the
 * contract code; domain: ERROR_DOMAIN; metadata: `recoverable`, `suggestedAction`, `field`, `retryAfterSeconds` when
 * known), a `BadRequest` when the error names a field or lists details (each detail a field violation with its code as
 * `reason`; a field without details is one violation without a reason), and a `RetryInfo` when it has a retry delay.
 */
export function statusOfServiceError(err: ServiceError): Status {
  const entry = ERROR_CATALOGUE[err.code];
  const metadata: Record<string, string> = { recoverable: String(entry.recoverable) };
  if (entry.suggestedAction !== undefined) metadata.suggestedAction = entry.suggestedAction;
  if (err.field !== undefined) metadata.field = wellFormed(err.field);
  if (err.retryAfter !== undefined) metadata.retryAfterSeconds = String(err.retryAfter);
  const details: Any[] = [
    {
      typeUrl: TYPE_URL.errorInfo,
      value: bytes(ErrorInfo.encode({ reason: err.code, domain: ERROR_DOMAIN, metadata })),
    },
  ];
  const violations = err.details
    ? err.details.map((d) => ({ field: wellFormed(d.field), description: wellFormed(d.message), reason: d.code }))
    : err.field !== undefined
      ? [{ field: wellFormed(err.field), description: wellFormed(err.message) }]
      : undefined;
  if (violations)
    details.push({ typeUrl: TYPE_URL.badRequest, value: bytes(BadRequest.encode({ fieldViolations: violations })) });
  if (err.retryAfter !== undefined) {
    const seconds = Math.floor(err.retryAfter);
    const nanos = Math.round((err.retryAfter - seconds) * 1e9);
    details.push({ typeUrl: TYPE_URL.retryInfo, value: bytes(RetryInfo.encode({ retryDelay: { seconds, nanos } })) });
  }
  return { code: HTTP_TO_GRPC[err.status] ?? GrpcStatus.UNKNOWN, message: wellFormed(err.message), details };
}

/** The bytes a ts-proto writer finished with. */
const bytes = (w: { finish(): Uint8Array }) => Buffer.from(w.finish());

/**
 * Encodes a ServiceError as a gRPC error: its status code, its message (made well-formed, a lone surrogate becoming
 * U+FFFD, since grpc-js percent-encodes it and a lone surrogate cannot be), and its `google.rpc.Status` in the
 * `grpc-status-details-bin` trailer, beside `extraTrailers` (RateLimit headers, request id).
 */
export function encodeServiceError(err: ServiceError, extraTrailers?: Metadata): Partial<GrpcServiceError> {
  const md = extraTrailers?.clone() ?? new Metadata();
  const status = statusOfServiceError(err);
  md.set(STATUS_DETAILS_TRAILER, Buffer.from(Status.encode(status).finish()));
  return { code: status.code, details: status.message, metadata: md };
}

/** The `google.rpc.Status` in trailers, or undefined when there is none (or it cannot be decoded). */
export function statusOfTrailers(md: Metadata | null | undefined): Status | undefined {
  const raw = md?.get(STATUS_DETAILS_TRAILER)[0];
  if (!Buffer.isBuffer(raw)) return undefined;
  try {
    return Status.decode(raw);
  } catch {
    return undefined;
  }
}

/** The contract's error details a Status carries: its ErrorInfo of ERROR_DOMAIN, BadRequest and RetryInfo. */
function detailsOfStatus(status: Status) {
  let errorInfo: ErrorInfo | undefined;
  let badRequest: BadRequest | undefined;
  let retryInfo: RetryInfo | undefined;
  for (const any of status.details ?? []) {
    const value = any.value ?? Buffer.alloc(0);
    if (any.typeUrl === TYPE_URL.errorInfo) {
      const info = ErrorInfo.decode(value);
      if (info.domain === ERROR_DOMAIN) errorInfo ??= info;
    } else if (any.typeUrl === TYPE_URL.badRequest) badRequest ??= BadRequest.decode(value);
    else if (any.typeUrl === TYPE_URL.retryInfo) retryInfo ??= RetryInfo.decode(value);
  }
  return { errorInfo, badRequest, retryInfo };
}

/** The contract error code (the ErrorInfo reason) a call's trailers carry, or undefined (a transport failure). */
export function errorCodeOfTrailers(md: Metadata | null | undefined): ErrorCode | undefined {
  const status = statusOfTrailers(md);
  if (!status) return undefined;
  try {
    const reason = detailsOfStatus(status).errorInfo?.reason;
    return reason !== undefined && isErrorCode(reason) ? reason : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Decodes a gRPC error back into a ServiceError (client side: the gateway and internal callers) from the
 * `google.rpc.Status` in its trailers. An error without a Status whose ErrorInfo names a contract code did not come
 * from an operation: a transport failure is 503 SERVICE_UNAVAILABLE (recoverable), anything else 500.
 */
export function decodeServiceError(err: GrpcServiceError): ServiceError {
  const status = statusOfTrailers(err.metadata);
  const decoded = status && serviceErrorOfStatus(status);
  if (decoded) return decoded;
  // No contract code in the trailers: the failure happened in the transport, not in an operation.
  if (TRANSPORT_FAILURES.has(err.code))
    return new ServiceError(
      'SERVICE_UNAVAILABLE',
      `The internal API did not answer (${GrpcStatus[err.code]}: ${err.details}).`,
      { retryAfter: 1, cause: err },
    );
  return new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
}

/** The ServiceError a Status describes, or undefined when it names no contract code of ERROR_DOMAIN. */
function serviceErrorOfStatus(status: Status): ServiceError | undefined {
  let parts: ReturnType<typeof detailsOfStatus>;
  try {
    parts = detailsOfStatus(status);
  } catch {
    return undefined;
  }
  const { errorInfo, badRequest, retryInfo } = parts;
  const code = errorInfo?.reason ?? '';
  if (!isErrorCode(code)) return undefined;
  const violations = badRequest?.fieldViolations ?? [];
  // Details travel as violations with a reason; a lone field (no details list) as one violation without a reason.
  const details: ErrorDetail[] | undefined =
    badRequest && (violations.length === 0 || violations.some((v) => v.reason))
      ? violations.map((v) => ({ field: v.field ?? '', code: v.reason ?? '', message: v.description ?? '' }))
      : undefined;
  const metadata = errorInfo?.metadata ?? {};
  const delay = retryInfo?.retryDelay;
  const retryAfter = delay
    ? (delay.seconds ?? 0) + (delay.nanos ?? 0) / 1e9
    : metadata.retryAfterSeconds !== undefined
      ? Number(metadata.retryAfterSeconds)
      : undefined;
  return new ServiceError(code, status.message || ERROR_CATALOGUE[code].message, {
    field: metadata.field,
    details,
    retryAfter,
  });
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
