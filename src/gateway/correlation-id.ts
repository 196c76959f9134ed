/** Longest X-Request-Id kept; longer ones are ignored rather than cut (a cut id would correlate nothing). */
const MAX_LENGTH = 200;
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * The caller's X-Request-Id when it is usable as a correlation id (1-200 printable ASCII characters, no spaces);
 * undefined otherwise. It is logged beside the service's own request id and echoed back, never trusted for anything else.
 */
export function correlationIdOf(header: string | undefined): string | undefined {
  const v = header?.trim();
  if (!v || v.length > MAX_LENGTH || !PRINTABLE.test(v)) return undefined;
  return v;
}
