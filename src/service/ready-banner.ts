import type { Config } from '../config/load-config.js';
import { REDIS_CLUSTER_SCHEME } from '../persistence/redis-cluster-client.js';

/** Where a started service listens, and the platform key it generated on its first start. */
export interface ReadyPorts {
  httpPort: number | undefined;
  grpcPort: number | undefined;
  metricsPort: number | undefined;
  generatedKey: string | undefined;
}

/**
 * The lines `npm start` prints once the service serves: addresses, metrics access, data, the worker processes (with
 * SERVICE_PROCESSES > 1) and a generated platform key.
 */
export function readyBanner(
  config: Config,
  ports: ReadyPorts,
  at: { startMs: number; workerPids?: readonly number[]; workerMetricsPorts?: readonly number[] },
): string {
  const lines = [`scheduling service ready in ${at.startMs} ms (roles: ${[...config.roles].join(', ')})`];
  if (ports.httpPort !== undefined)
    lines.push(`  REST gateway: http://${config.host}:${ports.httpPort}  (openapi: /openapi.json)`);
  if (ports.httpPort !== undefined)
    lines.push(`  console:      http://${config.host}:${ports.httpPort}/console  (inspector: /console/inspector)`);
  if (ports.grpcPort !== undefined)
    lines.push(`  gRPC:         ${config.host}:${ports.grpcPort}  (reflection and health enabled)`);
  const bearer = config.metricsToken !== undefined ? 'Authorization: Bearer $METRICS_TOKEN' : undefined;
  const perWorker = at.workerPids ? '; each scrape is answered by one worker' : '';
  if (at.workerMetricsPorts && at.workerMetricsPorts.length > 0)
    lines.push(
      `  metrics:      ${at.workerMetricsPorts.map((p) => `http://${config.host}:${p}/metrics`).join(', ')}  (one per worker, all metrics${bearer ? `; ${bearer}` : ''})`,
    );
  else if (ports.metricsPort !== undefined)
    lines.push(
      `  metrics:      http://${config.host}:${ports.metricsPort}/metrics  (all metrics${bearer ? `; ${bearer}` : ''}${perWorker})`,
    );
  else if (ports.httpPort !== undefined)
    lines.push(
      `  metrics:      /metrics  (${bearer ?? 'anonymous: process, admission and store health only; set METRICS_TOKEN or METRICS_PORT for all'}${perWorker})`,
    );
  lines.push(
    `  data:         ${config.redisUrl ? (config.redisUrl.startsWith(REDIS_CLUSTER_SCHEME) ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL') : `${config.dataDir}/redis`}, ${config.databaseUrl ? 'DATABASE_URL' : `${config.dataDir}/postgres`}`,
  );
  if (at.workerPids)
    lines.push(
      `  processes:    ${at.workerPids.length} workers (pids ${at.workerPids.join(', ')}), primary ${process.pid}`,
    );
  if (ports.generatedKey) lines.push(`  platform key (shown once, keep it secret): ${ports.generatedKey}`);
  return lines.join('\n');
}
