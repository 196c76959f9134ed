import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { ServiceError } from '../errors/service-error.js';
import type { MetricsScope, ServiceMetrics } from '../observability/service-metrics.js';

/** Who may read GET /metrics, and what they read. */
export interface MetricsAccess {
  /** METRICS_TOKEN: when set, every caller must send `Authorization: Bearer <token>` and then reads the full exposition. */
  token: string | undefined;
  /** What a caller reads when no token is configured: `anonymous` on the API's port, `full` on METRICS_PORT. */
  withoutToken: MetricsScope;
}

/** SHA-256 of a string: compared instead of the strings, so neither a differing byte nor a differing length shows. */
function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Answers whether an Authorization header is `Bearer <token>`, comparing in constant time. */
export function bearerMatches(authorization: string, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

/**
 * Serves GET /metrics in the Prometheus text format. The exposition is read from memory (no store round trip). With a
 * token configured, a missing or wrong `Authorization: Bearer` is 401 UNAUTHENTICATED in the v2 envelope, with
 * `WWW-Authenticate: Bearer`; without one, the caller reads what `access.withoutToken` says.
 */
export function serveMetrics(metrics: ServiceMetrics, access: MetricsAccess): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/metrics') return next();
    let scope = access.withoutToken;
    if (access.token !== undefined) {
      if (!bearerMatches(ctx.get('authorization'), access.token)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new ServiceError('UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
      }
      scope = 'full';
    }
    ctx.type = metrics.contentType;
    ctx.body = await metrics.render(scope);
  };
}
