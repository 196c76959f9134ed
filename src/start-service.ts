import { randomBytes } from 'node:crypto';
import type { Config } from './config/load-config.js';
import { bootstrapPlatform } from './application/bootstrap-platform.js';
import { createResolutionDeps } from './application/resolution/create-resolution-deps.js';
import { warmOrgGraphs } from './application/resolution/warm-org-graphs.js';
import type { ResolutionDeps } from './application/resolution/resolution-deps.js';
import type { OutboundLookup } from './application/outbound/guarded-lookup.js';
import { createAuditStream } from './persistence/audit-stream.js';
import { createWorkers } from './workers/create-workers.js';
import { createAuditWorkers, type AuditWorkers } from './workers/create-audit-workers.js';
import { createLogger, type ServiceLogger } from './observability/create-logger.js';
import { createServiceMetrics, type ServiceMetrics } from './observability/service-metrics.js';
import { createQueueGauges, type QueueGauges } from './observability/queue-gauges.js';
import type { Tracing } from './observability/create-tracing.js';
import { createLifetime } from './service/lifetime.js';
import { startPrivateStores } from './service/start-private-stores.js';
import { openStores } from './service/open-stores.js';
import { startMetricsListener } from './service/start-metrics-listener.js';
import { openTracing } from './service/open-tracing.js';
import { startGrpcRole } from './service/start-grpc-role.js';
import { SERVICE_VERSION, startGatewayRole } from './service/start-gateway-role.js';

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
   * Graceful stop: readiness turns 503, the gateway stops accepting and lets in-flight requests finish (at most
   * DRAIN_GRACE_MS), then the gRPC server, workers finish their current item, clients close, and private stores shut
   * down cleanly.
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
  /**
   * Tracing to use instead of the one the configuration asks for (tests: an InMemorySpanExporter's); the caller owns
   * it (the service does not shut it down).
   */
  tracing?: Tracing;
}

/**
 * Starts the service: private Redis / embedded PostgreSQL when no URLs are configured, migrations, platform bootstrap,
 * with the gRPC role the warm-up of recently resolved large graphs (warmOrgGraphs), then the configured roles (gRPC
 * server, workers, gateway). Every part registers its stop with one lifetime as it starts, so a stop (or a failed
 * start) stops them in the reverse order: gateway, workers, gRPC server, application, metrics, store clients, private
 * stores.
 */
export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  const clock = opts.clock ?? (() => new Date());
  const logger = opts.logger ?? createLogger({ level: config.logLevel });
  const log = opts.log ?? ((msg: string, extra?: Record<string, unknown>) => logger.error(extra ?? {}, msg));
  const metrics = createServiceMetrics();
  const lifetime = createLifetime(log);
  // The access log is written asynchronously: its last lines go out before the process ends.
  lifetime.defer(() => logger.flush());
  try {
    // Stopped late (before the log's flush only): the spans of the shutdown itself are exported too. An injected
    // tracing is its owner's to stop.
    const tracing = opts.tracing ?? (await openTracing(config, { lifetime, logger, serviceVersion: SERVICE_VERSION }));
    const urls = await startPrivateStores(config, lifetime, (level, msg, extra) => logger[level](extra ?? {}, msg));
    const stores = await openStores(config, urls, { lifetime, metrics, tracing });
    const { db, redis } = stores;
    // Operators see which way the service talks to PostgreSQL (docs/operations.md "PgBouncer").
    logger.info({ transactionPooler: stores.transactionPooler }, 'postgres connection mode');
    const { generatedKey } = await bootstrapPlatform(db, { bootstrapKey: config.bootstrapPlatformKey, now: clock() });

    // Every process samples the queues (one statement and one Redis batch per interval, whatever the scrapers do), so
    // whichever process Prometheus scrapes reports them.
    const queueGauges = createQueueGauges(metrics, { db, redis, clock });
    queueGauges.start();
    lifetime.defer(() => queueGauges.stop());
    const metricsPort =
      config.metricsPort === undefined
        ? undefined
        : await startMetricsListener(
            { port: config.metricsPort, host: config.host, metricsToken: config.metricsToken },
            { lifetime, metrics },
          );

    const deps = createResolutionDeps({
      db,
      redis,
      clock,
      config,
      metrics,
      ...(opts.outboundLookup ? { outboundLookup: opts.outboundLookup } : {}),
      ...(tracing ? { tracing } : {}),
    });
    lifetime.defer(() => deps.actorChanges.close());
    lifetime.defer(() => deps.organizations.close());
    const auditStream = createAuditStream({ redis });
    const audit = createAuditWorkers({ db, stream: auditStream, log });

    // A REST request is counted once, by the gateway's limit: its calls to the gRPC server of this same process carry
    // this token and are not counted there again (README "Admission and overload").
    const admittedToken =
      config.roles.has('gateway') && config.roles.has('grpc') && config.grpcTarget === undefined
        ? randomBytes(16).toString('hex')
        : undefined;
    if (config.roles.has('grpc')) {
      // Before the process serves: the large graphs it is likely to be asked for first, so that their first
      // resolution does not wait for the load (docs/capacity.md, Large organizations).
      const warmed = await warmOrgGraphs({
        db,
        orgGraphs: deps.orgGraphs,
        clock,
        maxBytes: config.graphCacheMaxBytes,
        budgetMs: config.graphWarmUpMs,
      }).catch((err: unknown) => {
        logger.warn({ err }, 'graph warm-up failed; serving without it');
        return undefined;
      });
      if (warmed && (warmed.organizations.length > 0 || warmed.outOfTime))
        logger.info(
          {
            organizations: warmed.organizations.length,
            mb: Math.round(warmed.bytes / 2 ** 20),
            outOfTime: warmed.outOfTime,
          },
          'graphs warmed up before serving',
        );
    }
    const grpcRole = config.roles.has('grpc')
      ? await startGrpcRole(config, { deps, stores, auditStream, admittedToken, lifetime, logger, metrics, tracing })
      : undefined;
    const grpcPort = grpcRole?.port;
    if (config.roles.has('workers')) {
      const workers = createWorkers(deps, { log, audit });
      workers.start();
      lifetime.defer(() => workers.stop());
    }
    const httpPort = config.roles.has('gateway')
      ? await startGatewayRole(config, {
          grpcTarget: config.grpcTarget ?? `${config.host}:${grpcPort ?? config.grpcPort}`,
          admittedToken,
          // The gateway of this process calls this server in-process (the same interceptors and handlers).
          ...(grpcRole && config.grpcTarget === undefined ? { inProcess: grpcRole.inProcess } : {}),
          probe: stores.probe,
          lifetime,
          logger,
          metrics,
          clock,
          tracing,
        })
      : undefined;
    return {
      httpPort,
      grpcPort,
      metricsPort,
      redisUrl: urls.redisUrl,
      databaseUrl: urls.databaseUrl,
      generatedKey,
      deps,
      audit: { flush: (o) => audit.flush(o) },
      logger,
      metrics,
      queueGauges: { refresh: () => queueGauges.refresh() },
      stop: () => lifetime.stop(),
    };
  } catch (err) {
    await lifetime.stop();
    throw err;
  }
}
