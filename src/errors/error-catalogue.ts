/** The closed catalogue of error codes (CONTRACT part 1): HTTP status, retry advice and default text. */
export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: {
    status: 400,
    recoverable: false,
    message: 'The request is invalid.',
    suggestedAction: 'Fix the field named in `field` and retry.',
  },
  INVALID_JSON: {
    status: 400,
    recoverable: false,
    message: 'The request body is not valid JSON.',
    suggestedAction: 'Send a well-formed JSON body.',
  },
  INVALID_DATE_RANGE: {
    status: 400,
    recoverable: false,
    message: 'dateRange is invalid: `to` must be after `from` and at most 14 days later.',
    suggestedAction: 'Send valid YYYY-MM-DD dates spanning 1 to 14 days.',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    recoverable: false,
    message: 'The Idempotency-Key header is required.',
    suggestedAction: 'Send a unique Idempotency-Key header.',
  },
  TOO_MANY_PROVIDERS: {
    status: 400,
    recoverable: false,
    message: 'At most 500 providers per import.',
    suggestedAction: 'Split the batch into calls of at most 500 providers.',
  },
  UNAUTHENTICATED: {
    status: 401,
    recoverable: false,
    message: 'A valid API key is required.',
    suggestedAction: 'Send Authorization: Bearer <API key>.',
  },
  FORBIDDEN: {
    status: 403,
    recoverable: false,
    message: 'This resource belongs to another organization.',
    suggestedAction: undefined,
  },
  PLATFORM_KEY_REQUIRED: {
    status: 403,
    recoverable: false,
    message: 'This operation needs a platform key.',
    suggestedAction: 'Use a platform_live or platform_test key.',
  },
  PLAN_UPGRADE_REQUIRED: {
    status: 403,
    recoverable: false,
    message: 'This operation needs the Launch plan or higher.',
    suggestedAction: 'Upgrade the organization plan.',
  },
  LIVE_KEY_REQUIRED: {
    status: 403,
    recoverable: false,
    message: 'This operation needs a live key.',
    suggestedAction: 'Use a service_live_ key.',
  },
  ROUTE_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'No such route.',
    suggestedAction: 'Check the path against /openapi.json.',
  },
  RESOLUTION_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Resolution not found.',
    suggestedAction: undefined,
  },
  OPTION_NOT_FOUND: { status: 404, recoverable: false, message: 'Option not found.', suggestedAction: undefined },
  HOLD_NOT_FOUND: { status: 404, recoverable: false, message: 'Hold not found.', suggestedAction: undefined },
  BOOKING_NOT_FOUND: { status: 404, recoverable: false, message: 'Booking not found.', suggestedAction: undefined },
  PROVIDER_NOT_FOUND: { status: 404, recoverable: false, message: 'Provider not found.', suggestedAction: undefined },
  SERVICE_NOT_FOUND: { status: 404, recoverable: false, message: 'Service not found.', suggestedAction: undefined },
  POLICY_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Ranking policy not found.',
    suggestedAction: undefined,
  },
  IMPORT_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Provider import not found.',
    suggestedAction: undefined,
  },
  DELIVERY_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Webhook delivery not found.',
    suggestedAction: undefined,
  },
  EVENT_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Event not found: no event has this id, or it is older than the 30 days events are kept.',
    suggestedAction: 'List recent events with GET /api/v2/events.',
  },
  ORGANIZATION_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Organization not found.',
    suggestedAction: undefined,
  },
  WEBHOOK_NOT_CONFIGURED: {
    status: 404,
    recoverable: false,
    message: 'No webhook is configured.',
    suggestedAction: 'Configure one with PUT /api/v2/webhooks.',
  },
  WAITLIST_ENTRY_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Waitlist entry not found.',
    suggestedAction: undefined,
  },
  CONTINUITY_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Continuity record not found.',
    suggestedAction: undefined,
  },
  CALENDAR_CONNECTION_NOT_FOUND: {
    status: 404,
    recoverable: false,
    message: 'Calendar connection not found.',
    suggestedAction: undefined,
  },
  API_KEY_NOT_FOUND: { status: 404, recoverable: false, message: 'API key not found.', suggestedAction: undefined },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    recoverable: false,
    message: 'This Idempotency-Key was used with a different payload.',
    suggestedAction: 'Use a new Idempotency-Key for a different request.',
  },
  IDEMPOTENCY_REQUEST_IN_PROGRESS: {
    status: 409,
    recoverable: true,
    message: 'A request with this Idempotency-Key is still in progress.',
    suggestedAction: 'Retry shortly with the same key.',
  },
  SLOT_UNAVAILABLE: {
    status: 409,
    recoverable: false,
    message: 'The slot is no longer available.',
    suggestedAction: 'Resolve again to get a free slot.',
  },
  HOLD_CONFLICT: {
    status: 409,
    recoverable: false,
    message: 'The resolution already has an active hold.',
    suggestedAction: 'Release the active hold first.',
  },
  HOLD_RELEASED: {
    status: 409,
    recoverable: false,
    message: 'The hold was released.',
    suggestedAction: 'Create a new hold.',
  },
  HOLD_MISMATCH: {
    status: 409,
    recoverable: false,
    message: 'The hold belongs to another option.',
    suggestedAction: undefined,
  },
  RESOLUTION_ALREADY_CONFIRMED: {
    status: 409,
    recoverable: false,
    message: 'The resolution already has a booking.',
    suggestedAction: undefined,
  },
  BOOKING_STATE_CONFLICT: {
    status: 409,
    recoverable: false,
    message: 'The booking is not in a state that allows this.',
    suggestedAction: undefined,
  },
  DELIVERY_IN_PROGRESS: {
    status: 409,
    recoverable: true,
    message: 'This delivery is being sent right now.',
    suggestedAction: 'Retry the replay in a few seconds.',
  },
  DUPLICATE_EXTERNAL_ID: {
    status: 409,
    recoverable: false,
    message: 'A record with this externalId already exists.',
    suggestedAction: 'Update the existing record instead.',
  },
  RESOLUTION_EXPIRED: {
    status: 410,
    recoverable: false,
    message: 'The resolution has expired.',
    suggestedAction: 'Create a new resolution.',
  },
  HOLD_EXPIRED: {
    status: 410,
    recoverable: false,
    message: 'The hold has expired.',
    suggestedAction: 'Resolve again to get a new slot.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    recoverable: true,
    message: 'The request was not received in time.',
    suggestedAction: 'Send the whole request (headers and body) without pausing, then retry.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    recoverable: false,
    message: 'The request body is larger than 1 MB.',
    suggestedAction: undefined,
  },
  LICENSE_REGION_MISMATCH: {
    status: 422,
    recoverable: false,
    message: 'No provider holds a valid license in the requested region.',
    suggestedAction: 'Widen licenseRegionCodes.',
  },
  SLOT_OUTSIDE_AVAILABILITY: {
    status: 422,
    recoverable: false,
    message: 'The slot is outside the provider’s availability.',
    suggestedAction: 'Pick a slot from GET /api/v1/slots.',
  },
  COMBINED_DATETIME_NOT_ACCEPTED: {
    status: 422,
    recoverable: false,
    message: 'Send separate `date` and `time` fields, not a combined datetime.',
    suggestedAction: undefined,
  },
  DELIVERY_NOT_REPLAYABLE: {
    status: 422,
    recoverable: false,
    message: 'This delivery is suppressed: it was recorded for a test-mode event, and test deliveries are never sent.',
    suggestedAction: 'Replay only deliveries of live-mode events.',
  },
  RATE_LIMITED: {
    status: 429,
    recoverable: true,
    message: 'Rate limit exceeded.',
    suggestedAction: 'Wait Retry-After seconds, then retry.',
  },
  INTERNAL_ERROR: {
    status: 500,
    recoverable: true,
    message: 'An unexpected error occurred.',
    suggestedAction: 'Retry with exponential backoff.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    recoverable: true,
    message: 'A backing store is unavailable, or the service is at its admission limit.',
    suggestedAction: 'Retry after Retry-After seconds.',
  },
} as const satisfies Record<
  string,
  { status: number; recoverable: boolean; message: string; suggestedAction: string | undefined }
>;

/** A code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Answers whether a string is a catalogued error code. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
