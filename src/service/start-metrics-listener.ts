import { createServer } from 'node:http';
import { createMetricsApp } from '../gateway/create-metrics-app.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Lifetime } from './lifetime.js';
import { listenHttp } from './listen-http.js';

/**
 * Serves GET /metrics on its own port (METRICS_PORT; in a worker of SERVICE_PROCESSES > 1, METRICS_PORT plus its
 * index) and answers that port; closes, dropping open connections, with the lifetime.
 */
export async function startMetricsListener(
  at: { port: number; host: string; metricsToken: string | undefined },
  deps: { lifetime: Lifetime; metrics: ServiceMetrics },
): Promise<number> {
  const server = createServer(createMetricsApp({ metrics: deps.metrics, metricsToken: at.metricsToken }).callback());
  // Exclusive: a worker of SERVICE_PROCESSES > 1 is scraped on a port of its own (a target per process), never on a
  // port shared with the other workers where each scrape would reach one of them at random.
  const port = await listenHttp(server, at.port, at.host, true);
  deps.lifetime.defer(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return port;
}
