import Koa from 'koa';
import { ServiceError } from '../errors/service-error.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import { v2ErrorBody } from './error-envelope.js';
import { newRequestId } from './new-request-id.js';
import { serveMetrics } from './serve-metrics.js';

/**
 * Builds the app of the METRICS_PORT listener: GET /metrics with the full exposition (behind METRICS_TOKEN when one is
 * set), for a Prometheus that reaches the service on a network of its own; any other request is 404 ROUTE_NOT_FOUND.
 * Errors are rendered in the v2 envelope, as on the API's port. It runs in every process that sets METRICS_PORT,
 * whatever its roles, so a workers-only process can be scraped too.
 */
export function createMetricsApp(deps: { metrics: ServiceMetrics; metricsToken: string | undefined }): Koa {
  const app = new Koa();
  app.proxy = false;
  app.use(async (ctx, next) => {
    const requestId = newRequestId();
    ctx.set('X-Service-Request-Id', requestId);
    try {
      await next();
      if (ctx.body === undefined) throw new ServiceError('ROUTE_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
    } catch (err) {
      const se = err instanceof ServiceError ? err : new ServiceError('INTERNAL_ERROR', undefined, { cause: err });
      deps.metrics.errors.inc({ code: se.code });
      ctx.status = se.status;
      ctx.body = v2ErrorBody(se, requestId);
    }
  });
  app.use(serveMetrics(deps.metrics, { token: deps.metricsToken, withoutToken: 'full' }));
  return app;
}
