import { createServer, type Server as HttpServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { getClientChannel } from '@grpc/grpc-js';
import type { Config } from './config/load-config.js';
import { startPrivateRedis, type PrivateRedis } from './launcher/private-redis.js';
import { startEmbeddedPostgres, type PrivatePostgres } from './launcher/embedded-postgres.js';
import { superviseStore, type SupervisedStore } from './launcher/supervise-store.js';
import { createDatabase, type Database } from './persistence/database.js';
import { boundPoolWaiters } from './persistence/bound-pool-waiters.js';
import { createRedis, type Redis } from './persistence/redis-client.js';
import { createStoreProbe, type StoreHealth } from './persistence/store-probe.js';
import { runMigrations } from './persistence/run-migrations.js';
import { bootstrapPlatform } from './application/bootstrap-platform.js';
import { createAuthenticator } from './application/authenticate.js';
import { createRateLimiter } from './application/rate-limiter.js';
import { createOpenStreams } from './application/open-streams.js';
import { createStreamLeases } from './persistence/stream-leases.js';
import { createFailedAuthLimit } from './application/failed-auth-limit.js';
import { createResolutionDeps } from './application/resolution/create-resolution-deps.js';
import type { ResolutionDeps } from './application/resolution/resolution-deps.js';
import { createOperations } from './application/create-operations.js';
import { createGrpcServer } from './grpc/create-grpc-server.js';
import { createGateway } from './gateway/create-gateway.js';
import { createHttpDrain } from './gateway/create-http-drain.js';
import { closeGrpcClients, createGrpcClients, createStreamClients } from './gateway/grpc-clients.js';
import { probeInternalApi } from './gateway/probe-internal-api.js';
import type { InProcessApi } from './gateway/in-process-caller.js';
import { ALL_ROUTES } from './contract/routes/all-routes.js';
import { buildCapabilities, buildOpenApi } from './contract/build-openapi.js';
import { createWorkers } from './workers/create-workers.js';
import { createAuditStream } from './persistence/audit-stream.js';
import { createHeaderUseRecorder } from './application/audit/record-header-use.js';
import { createAuditWorkers, type AuditWorkers } from './workers/create-audit-workers.js';
import { createLogger, type ServiceLogger } from './observability/create-logger.js';
import { createServiceMetrics, type ServiceMetrics } from './observability/service-metrics.js';
import { createQueueGauges, type QueueGauges } from './observability/queue-gauges.js';
import { createMetricsApp } from './gateway/create-metrics-app.js';
import type { OutboundLookup } from './application/outbound/guarded-lookup.js';
import { ServiceError } from './errors/service-error.js';
import { answerClientErrors } from './gateway/answer-client-errors.js';

const VERSION = '0.1.0';
/** How long shutdown lets in-flight HTTP requests, then in-flight gRPC calls, finish before it closes their connections. */
const DRAIN_GRACE_MS = 10_000;
/** Bound of each readiness check of a store (/readyz, gRPC health). */
const PROBE_TIMEOUT_MS = 1000;

/** Why a readiness check failed, in words for the 503's message; undefined when everything answered. */
function notReadyReason(h: StoreHealth): string | undefined {
  if (!h.redis && !h.postgres) return 'Redis and PostgreSQL are not reachable.';
  if (!h.redis) return 'Redis is not reachable.';
  if (!h.postgres) return 'PostgreSQL is not reachable.';
  return undefined;
}

/** A running service process (some or all roles). */
export interface RunningService {
  httpPort: number | undefined;
  grpcPort: number | undefined;
  /** Port of the METRICS_PORT listener, when configured. */
  metricsPort: number | undefined;
  redisUrl: string;
  databaseUrl: string;
  generatedKey: string | undefined;
  deps: ResolutionDeps;
  /** The audit drain and sequencer; `flush` waits until everything recorded so far is stored and linked. */
  audit: Pick<AuditWorkers, 'flush'>;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  /** The queue gauges' sampler; `refresh` takes a sample now instead of at the next interval (tests, tools). */
  queueGauges: Pick<QueueGauges, 'refresh'>;
  /**
   * Graceful stop: readiness turns 503, the gateway stops accepting and lets in-flight requests finish (at most 10 s),
   * then the gRPC server, workers finish their current item, clients close, and private stores shut down cleanly.
   */
  stop(): Promise<void>;
}

/** Options that tests and tools inject. */
export interface StartOptions {
  clock?: () => Date;
  /** Replaces the failure log of workers and shutdown (default: the logger at level error). */
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  /** The structured logger (default: pino at the configured LOG_LEVEL, on stdout). */
  logger?: ServiceLogger;
  /** DNS resolution of outbound hosts (webhooks, calendar feeds; default dns.lookup); every answer is still checked. */
  outboundLookup?: OutboundLookup;
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
  let draining = false;
  /** Told at once when a stop begins, before any step of it runs. */
  const onDrain: (() => void)[] = [];
  const stopAll = async () => {
    draining = true;
    for (const f of onDrain) f();
    for (const c of cleanups.reverse()) await c().catch((err) => log('shutdown step failed', { error: String(err) }));
    // The access log is written asynchronously: its last lines go out before the process ends.
    logger.flush();
  };
  const storeLog = (level: 'warn' | 'info' | 'error', msg: string, extra?: Record<string, unknown>) =>
    logger[level](extra ?? {}, msg);
  try {
    let privateRedis: SupervisedStore<PrivateRedis> | undefined;
    let privatePg: SupervisedStore<PrivatePostgres> | undefined;
    let redisUrl = config.redisUrl;
    if (redisUrl === undefined) {
      // A private store that dies is started again on the same data and port: clients reconnect to the same URL.
      const dir = join(config.dataDir, 'redis');
      const first = await startPrivateRedis({ dir });
      redisUrl = first.url;
      privateRedis = superviseStore({
        name: 'redis-server',
        first,
        restart: () => startPrivateRedis({ dir, port: first.port }),
        log: storeLog,
        shouldRestart: () => !draining,
      });
      cleanups.push(() => privateRedis!.stop());
    }
    let databaseUrl = config.databaseUrl;
    if (databaseUrl === undefined) {
      const dir = join(config.dataDir, 'postgres');
      const first = await startEmbeddedPostgres({ dir });
      databaseUrl = first.url;
      privatePg = superviseStore({
        name: 'postgres',
        first,
        restart: () => startEmbeddedPostgres({ dir, port: first.port }),
        log: storeLog,
        shouldRestart: () => !draining,
      });
      cleanups.push(() => privatePg!.stop());
    }

    const st = config.storeTimeouts;
    const db: Database = createDatabase(databaseUrl, {
      onPoolWait: (s) => metrics.poolWait.observe(s),
      timeouts: {
        statementMs: st.pgStatementMs,
        lockMs: st.pgLockMs,
        poolWaitMs: st.pgPoolWaitMs,
        transactionMs: st.pgTransactionMs,
      },
    });
    cleanups.push(() => db.close());
    boundPoolWaiters(db.pool, {
      maxWaiters: config.pgPoolMaxWaiters,
      onRefused: () => metrics.admissionShed.inc({ gate: 'pg_pool', reason: 'pool_full' }),
    });
    await runMigrations(db.pool);
    const { generatedKey } = await bootstrapPlatform(db, { bootstrapKey: config.bootstrapPlatformKey, now: clock() });
    const redis: Redis = await createRedis(redisUrl, { commandTimeoutMs: st.redisCommandMs });
    cleanups.push(async () => {
      await redis.close().catch(() => redis.destroy());
    });
    const probe = createStoreProbe({ databaseUrl, redis, timeoutMs: PROBE_TIMEOUT_MS });
    cleanups.push(() => probe.close());

    const deps = createResolutionDeps({
      db,
      redis,
      clock,
      config,
      metrics,
      ...(opts.outboundLookup ? { outboundLookup: opts.outboundLookup } : {}),
    });
    // Every process samples the queues (one statement and one Redis batch per interval, whatever the scrapers do), so
    // whichever process Prometheus scrapes reports them.
    const queueGauges = createQueueGauges(metrics, { db, redis, clock });
    queueGauges.start();
    cleanups.push(() => queueGauges.stop());
    let metricsPort: number | undefined;
    if (config.metricsPort !== undefined) {
      const metricsServer = createServer(createMetricsApp({ metrics, metricsToken: config.metricsToken }).callback());
      await new Promise<void>((resolve, reject) => {
        metricsServer.once('error', reject);
        metricsServer.listen(config.metricsPort, config.host, () => resolve());
      });
      const addr = metricsServer.address();
      metricsPort = typeof addr === 'object' && addr ? addr.port : config.metricsPort;
      cleanups.push(
        () =>
          new Promise<void>((resolve) => {
            metricsServer.close(() => resolve());
            metricsServer.closeAllConnections();
          }),
      );
    }
    cleanups.push(() => deps.actorChanges.close());
    cleanups.push(() => deps.organizations.close());
    const auditStream = createAuditStream({ redis });
    const audit = createAuditWorkers({ db, stream: auditStream, log });
    // A REST request is counted once, by the gateway's limit: its calls to the gRPC server of this same process carry
    // this token and are not counted there again (docs/operations.md "Admission and overload").
    const admittedToken =
      config.roles.has('gateway') && config.roles.has('grpc') && config.grpcTarget === undefined
        ? randomBytes(16).toString('hex')
        : undefined;
    let grpcPort: number | undefined;
    let inProcessApi: InProcessApi | undefined;
    if (config.roles.has('grpc')) {
      const streams = createOpenStreams({
        leases: createStreamLeases({ redis }),
        db,
        clock,
        limits: config.streamLimits,
        onError: (what, err) => logger.warn({ err }, `${what} failed`),
      });
      cleanups.push(async () => streams.stop());
      metrics.gaugeOnScrape(
        'scheduling_server_streams_open',
        'Server streams (inspector follows) this process serves, both doors together; at most MAX_STREAMS_PER_PROCESS.',
        () => streams.active,
        { anonymous: true },
      );
      const grpc = createGrpcServer({
        streams,
        operations: createOperations(deps),
        authenticate: createAuthenticator({
          credentials: deps.credentials,
          clock,
          failedAuth: createFailedAuthLimit({
            redis,
            limitPerMinute: config.failedAuthLimitPerMinute,
            clock,
            onRoundTrip: (s) => metrics.redisDuration.observe({ op: 'failed_auth' }, s),
          }),
        }),
        rateLimit: createRateLimiter({
          redis,
          limitPerMinute: config.rateLimitPerMinute,
          clock,
          onRoundTrip: (s) => metrics.redisDuration.observe({ op: 'ratelimit' }, s),
        }),
        db,
        recordHeaderUse: createHeaderUseRecorder({ stream: auditStream, clock }),
        clock,
        logger,
        metrics,
        admission: {
          limits: {
            limit: config.maxInFlightCalls,
            maxQueue: config.admissionQueueLength,
            maxWaitMs: config.admissionMaxWaitMs,
          },
          admittedToken,
        },
      });
      grpcPort = await grpc.listen(config.host, config.grpcPort);
      // The gateway of this process calls this server in-process (the same interceptors and handlers, no loopback HTTP/2).
      if (config.grpcTarget === undefined) inProcessApi = grpc.inProcess;
      // tryShutdown waits for every call; one stuck on a hung store is cut off after the grace period.
      cleanups.push(async () => {
        const timer = setTimeout(() => grpc.server.forceShutdown(), DRAIN_GRACE_MS);
        await grpc.stop();
        clearTimeout(timer);
      });
      // Health reflects whether the stores answer (each check bounded), so /readyz and gRPC health agree.
      const healthProbe = setInterval(() => {
        const sent = performance.now();
        void probe.check().then((h) => {
          if (h.redis) metrics.redisDuration.observe({ op: 'ping' }, (performance.now() - sent) / 1000);
          grpc.health.setStatus('', !draining && notReadyReason(h) === undefined ? 'SERVING' : 'NOT_SERVING');
        });
      }, 1000);
      healthProbe.unref();
      onDrain.push(() => grpc.health.setStatus('', 'NOT_SERVING'));
      cleanups.push(async () => clearInterval(healthProbe));
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
      const streamClients = createStreamClients(target);
      cleanups.push(async () => {
        closeGrpcClients(clients);
        closeGrpcClients(streamClients);
      });
      const internalApi = probeInternalApi(getClientChannel(clients.GatewayService), PROBE_TIMEOUT_MS);
      const openapi = buildOpenApi(ALL_ROUTES, { version: VERSION });
      const capabilities = buildCapabilities(ALL_ROUTES, {
        version: VERSION,
        limits: {
          providersPerImport: 500,
          searchWindowDays: 14,
          optionsReturned: 10,
          holdTtlMaxSeconds: 600,
          resolutionTtlSeconds: config.resolutionTtlSeconds,
          rateLimitPerMinute: config.rateLimitPerMinute,
          bodyLimitBytes: 1048576,
        },
      });
      const app = createGateway({
        routes: ALL_ROUTES,
        clients,
        streamClients,
        ...(inProcessApi ? { inProcess: inProcessApi } : {}),
        openapi: () => openapi,
        capabilities: () => capabilities,
        logger,
        metrics,
        admission: {
          limit: config.maxInFlightRequests,
          maxQueue: config.admissionQueueLength,
          maxWaitMs: config.admissionMaxWaitMs,
        },
        admittedToken,
        answers: config.gatewayAnswers,
        ...(config.metricsToken !== undefined ? { metricsToken: config.metricsToken } : {}),
        // Readiness asks the gRPC side (which probes its stores) on the connection the API's unary calls use, and checks
        // this process's own stores, all at once and each bounded, so /readyz answers within about a second even when a
        // store hangs, and says not ready when API calls could not get through.
        ready: async () => {
          if (draining)
            throw new ServiceError('SERVICE_UNAVAILABLE', 'The service is shutting down.', { retryAfter: 1 });
          const [api, stores] = await Promise.all([internalApi(), probe.check()]);
          const reason =
            notReadyReason(stores) ??
            (api === 'serving'
              ? undefined
              : api === 'not-serving'
                ? 'The internal API reports Redis or PostgreSQL unreachable.'
                : `The internal API did not answer a health check within ${PROBE_TIMEOUT_MS} ms on the connection API calls use.`);
          if (reason !== undefined) throw new ServiceError('SERVICE_UNAVAILABLE', reason, { retryAfter: 1 });
          return true;
        },
      });
      const server: HttpServer = createServer(app.callback());
      // Requests Node refuses before Koa sees them (headers over 16 KB, malformed HTTP) still get the envelope.
      answerClientErrors(server, { logger, metrics });
      const drain = createHttpDrain(server);
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const addr = server.address();
      httpPort = typeof addr === 'object' && addr ? addr.port : config.port;
      cleanups.push(() => drain.close(DRAIN_GRACE_MS));
    }
    return {
      httpPort,
      grpcPort,
      metricsPort,
      redisUrl,
      databaseUrl,
      generatedKey,
      deps,
      audit: { flush: (o) => audit.flush(o) },
      logger,
      metrics,
      queueGauges: { refresh: () => queueGauges.refresh() },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
