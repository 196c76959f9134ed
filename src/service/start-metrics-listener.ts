import { createServer } from 'node:http';
import { createMetricsApp } from '../gateway/create-metrics-app.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Lifetime } from './lifetime.js';
import { listenHttp } from './listen-http.js';

/**
 * Serves GET /metrics on its own port (METRICS_PORT) and answers that port; closes, dropping open connections, with
 * the lifetime.
 */
export async function startMetricsListener(
  at: { port: number; host: string; metricsToken: string | undefined },
  deps: { lifetime: Lifetime; metrics: ServiceMetrics },
): Promise<number> {
  const server = createServer(createMetricsApp({ metrics: deps.metrics, metricsToken: at.metricsToken }).callback());
  const port = await listenHttp(server, at.port, at.host);
  deps.lifetime.defer(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return port;
}
