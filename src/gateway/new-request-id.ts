import { randomUUID } from 'node:crypto';

/** A new `X-Service-Request-Id` (`req_` and 32 hex digits). */
export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, '')}`;
}
