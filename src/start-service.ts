import { createServer, type Server as HttpServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { Config } from './config/load-config.js';
import { startPrivateRedis, type PrivateRedis } from './launcher/private-redis.js';
import { startEmbeddedPostgres, type PrivatePostgres } from './launcher/embedded-postgres.js';
import { createDatabase, type Database } from './persistence/database.js';
import { createRedis, type Redis } from './persistence/redis-client.js';
import { runMigrations } from './persistence/run-migrations.js';
import { bootstrapPlatform } from './application/bootstrap-platform.js';
import { createAuthenticator } from './application/authenticate.js';
import { createRateLimiter } from './application/rate-limiter.js';
import { createResolutionDeps } from './application/resolution/create-resolution-deps.js';
import type { ResolutionDeps } from './application/resolution/resolution-deps.js';
import { createOperations } from './application/create-operations.js';
import { createGrpcServer } from './grpc/create-grpc-server.js';
import { createGateway } from './gateway/create-gateway.js';
import { closeGrpcClients, createGrpcClients } from './gateway/grpc-clients.js';
import { ALL_ROUTES } from './contract/routes/all-routes.js';
import { buildCapabilities, buildOpenApi } from './contract/build-openapi.js';
import { createWorkers } from './workers/create-workers.js';
import { createAuditStream } from './persistence/audit-stream.js';
import { createHeaderUseRecorder } from './application/audit/record-header-use.js';
import { createAuditWorkers, type AuditWorkers } from './workers/create-audit-workers.js';
import { createLogger, type ServiceLogger } from './observability/create-logger.js';
import { createServiceMetrics, type ServiceMetrics } from './observability/service-metrics.js';
import { registerQueueGauges } from './observability/queue-gauges.js';
import type { WebhookLookup } from './application/webhooks/webhook-target.js';

const VERSION = '0.1.0';

/** A running service process (some or all roles). */
export interface RunningService {
  httpPort: number | undefined;
  grpcPort: number | undefined;
  redisUrl: string;
  databaseUrl: string;
  generatedKey: string | undefined;
  deps: ResolutionDeps;
  /** The audit drain and sequencer; `flush` waits until everything recorded so far is stored and linked. */
  audit: Pick<AuditWorkers, 'flush'>;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  stop(): Promise<void>;
}

/** Options that tests and tools inject. */
export interface StartOptions {
  clock?: () => Date;
  /** Replaces the failure log of workers and shutdown (default: the logger at level error). */
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  /** The structured logger (default: pino at the configured LOG_LEVEL, on stdout). */
  logger?: ServiceLogger;
  /** DNS resolution of webhook hosts (default dns.lookup); every connection's addresses are still checked. */
  webhookLookup?: WebhookLookup;
}

/**
 * Starts the service: private Redis / embedded PostgreSQL when no URLs are configured, migrations,
 * platform bootstrap, then the configured roles (gRPC server, gateway, workers).
 */
export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  const clock = opts.clock ?? (() => new Date());
  const logger = opts.logger ?? createLogger({ level: config.logLevel });
  const log = opts.log ?? ((msg: string, extra?: Record<string, unknown>) => logger.error(extra ?? {}, msg));
  const metrics = createServiceMetrics();
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch((err) => log('shutdown step failed', { error: String(err) }));
  };
  try {
    let privateRedis: PrivateRedis | undefined;
    let privatePg: PrivatePostgres | undefined;
    const redisUrl = config.redisUrl ?? (privateRedis = await startPrivateRedis({ dir: join(config.dataDir, 'redis') })).url;
    if (privateRedis) cleanups.push(() => privateRedis!.stop());
    const databaseUrl = config.databaseUrl ?? (privatePg = await startEmbeddedPostgres({ dir: join(config.dataDir, 'postgres') })).url;
    if (privatePg) cleanups.push(() => privatePg!.stop());

    const db: Database = createDatabase(databaseUrl, { onPoolWait: (s) => metrics.poolWait.observe(s) });
    cleanups.push(() => db.close());
    await runMigrations(db.pool);
    const { generatedKey } = await bootstrapPlatform(db, { bootstrapKey: config.bootstrapPlatformKey, now: clock() });
    const redis: Redis = await createRedis(redisUrl);
    cleanups.push(async () => { await redis.close().catch(() => redis.destroy()); });

    const deps = createResolutionDeps({ db, redis, clock, config, metrics, ...(opts.webhookLookup ? { webhookLookup: opts.webhookLookup } : {}) });
    registerQueueGauges(metrics, { db, redis, clock });
    const auditStream = createAuditStream({ redis });
    const audit = createAuditWorkers({ db, stream: auditStream, log });
    let grpcPort: number | undefined;
    if (config.roles.has('grpc')) {
      const grpc = createGrpcServer({
        operations: createOperations(deps),
        authenticate: createAuthenticator({ credentials: deps.credentials, clock }),
        rateLimit: createRateLimiter({ redis, limitPerMinute: config.rateLimitPerMinute, clock, onRoundTrip: (s) => metrics.redisDuration.observe({ op: 'ratelimit' }, s) }),
        db,
        recordHeaderUse: createHeaderUseRecorder({ stream: auditStream, clock }),
        clock,
        logger,
        metrics,
      });
      grpcPort = await grpc.listen(config.host, config.grpcPort);
      cleanups.push(() => grpc.stop());
      // Health reflects whether the stores answer, so /readyz and gRPC health agree.
      const probe = setInterval(() => {
        const sent = performance.now();
        void Promise.all([db.pool.query('SELECT 1'), redis.ping().then(() => metrics.redisDuration.observe({ op: 'ping' }, (performance.now() - sent) / 1000))])
          .then(() => grpc.health.setStatus('', 'SERVING'))
          .catch(() => grpc.health.setStatus('', 'NOT_SERVING'));
      }, 1000);
      probe.unref();
      cleanups.push(async () => clearInterval(probe));
    }
    if (config.roles.has('workers')) {
      const workers = createWorkers(deps, { log, audit });
      workers.start();
      cleanups.push(() => workers.stop());
    }
    let httpPort: number | undefined;
    if (config.roles.has('gateway')) {
      const target = config.grpcTarget ?? `${config.host}:${grpcPort ?? config.grpcPort}`;
      const clients = createGrpcClients(target);
      cleanups.push(async () => closeGrpcClients(clients));
      const HealthClient = makeGenericClientConstructor(healthService as never, 'Health');
      const health = new HealthClient(target, credentials.createInsecure()) as unknown as { check(req: { service: string }, opts: { deadline: number }, cb: (err: unknown, res: { status: string | number }) => void): void; close(): void };
      cleanups.push(async () => health.close());
      const openapi = buildOpenApi(ALL_ROUTES, { version: VERSION });
      const capabilities = buildCapabilities(ALL_ROUTES, { version: VERSION, limits: { providersPerImport: 500, searchWindowDays: 14, optionsReturned: 10, holdTtlMaxSeconds: 600, resolutionTtlSeconds: config.resolutionTtlSeconds, rateLimitPerMinute: config.rateLimitPerMinute, bodyLimitBytes: 1048576 } });
      const app = createGateway({
        routes: ALL_ROUTES,
        clients,
        openapi: () => openapi,
        capabilities: () => capabilities,
        logger,
        metrics,
        // Readiness asks the gRPC side (which probes Redis and PostgreSQL), and checks this process's own stores.
        ready: async () => {
          const viaGrpc = await new Promise<boolean>((resolve) => health.check({ service: '' }, { deadline: Date.now() + 2000 }, (err, res) => resolve(!err && (res.status === 'SERVING' || res.status === 1))));
          if (!viaGrpc) return false;
          await Promise.all([db.pool.query('SELECT 1'), redis.ping()]);
          return true;
        },
      });
      const server: HttpServer = createServer(app.callback());
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(config.port, config.host, () => resolve()); });
      const addr = server.address();
      httpPort = typeof addr === 'object' && addr ? addr.port : config.port;
      cleanups.push(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
    }
    return { httpPort, grpcPort, redisUrl, databaseUrl, generatedKey, deps, audit: { flush: (o) => audit.flush(o) }, logger, metrics, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
