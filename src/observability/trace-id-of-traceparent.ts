/** version-traceid-parentid-flags, W3C Trace Context level 1 (a later version may add fields after these). */
const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}(?:-|$)/;
const ZERO_TRACE_ID = '0'.repeat(32);

/**
 * The trace id of a `traceparent` header when it is a valid one, else undefined. With tracing off, a log line names the
 * caller's trace id this way, so it still matches the caller's trace; nothing is traced here.
 */
export function traceIdOfTraceparent(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 512) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m || m[1] === ZERO_TRACE_ID || header.startsWith('ff')) return undefined;
  return m[1];
}
