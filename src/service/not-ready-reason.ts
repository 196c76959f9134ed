import type { StoreHealth } from '../persistence/store-probe.js';

/** Why a readiness check failed, in words for the 503's message; undefined when every store answered. */
export function notReadyReason(h: StoreHealth): string | undefined {
  if (!h.redis && !h.postgres) return 'Redis and PostgreSQL are not reachable.';
  if (!h.redis) return 'Redis is not reachable.';
  if (!h.postgres) return 'PostgreSQL is not reachable.';
  return undefined;
}
