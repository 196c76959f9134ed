import type { InProcessApi } from '../gateway/in-process-caller.js';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config/load-config.js';
import type { ResolutionDeps } from '../application/resolution/resolution-deps.js';
import { createAuthenticator } from '../application/authenticate.js';
import { createRateLimiter } from '../application/rate-limiter.js';
import { createOpenStreams } from '../application/open-streams.js';
import { createFailedAuthLimit } from '../application/failed-auth-limit.js';
import { createTypedServices } from '../api/create-typed-services.js';
import { createHeaderUseRecorder } from '../application/audit/record-header-use.js';
import { createStreamLeases } from '../persistence/stream-leases.js';
import type { AuditStream } from '../persistence/audit-stream.js';
import { createGrpcServer } from '../grpc/create-grpc-server.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Tracing } from '../observability/create-tracing.js';
import { DRAIN_GRACE_MS, type Lifetime } from './lifetime.js';
import type { OpenStores } from './open-stores.js';
import { notReadyReason } from './not-ready-reason.js';

/** How often gRPC health asks the stores whether they answer. */
const HEALTH_PROBE_INTERVAL_MS = 1000;

/** What the gRPC role runs on. */
export interface GrpcRoleDeps {
  deps: ResolutionDeps;
  stores: OpenStores;
  auditStream: AuditStream;
  /** Marks the calls of this process's own gateway, already admitted there (README "Admission and overload"). */
  admittedToken: string | undefined;
  lifetime: Lifetime;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  /** OpenTelemetry tracing, when on: a span per call. */
  tracing?: Tracing | undefined;
}

/**
 * Starts the gRPC server (auth, rate limit, admission, operations, server streams, health following the stores) and
 * answers its port. With the lifetime: health turns NOT_SERVING as soon as a stop begins; the server then lets in-flight
 * calls finish for at most DRAIN_GRACE_MS, and the open streams end.
 */
/** The gRPC role's port, and its in-process door for a gateway of the same process. */
export interface GrpcRole {
  port: number;
  /** The server's calls in-process: the same interceptors and handlers, no loopback HTTP/2. */
  inProcess: InProcessApi;
}

export async function startGrpcRole(config: Config, r: GrpcRoleDeps): Promise<GrpcRole> {
  const { deps, lifetime, logger, metrics } = r;
  const { db, redis, probe } = r.stores;
  const { clock } = deps;
  const streams = createOpenStreams({
    leases: createStreamLeases({ redis }),
    db,
    clock,
    limits: config.streamLimits,
    onError: (what, err) => logger.warn({ err }, `${what} failed`),
  });
  lifetime.defer(() => streams.stop());
  metrics.gaugeOnScrape(
    'scheduling_server_streams_open',
    'Server streams (inspector follows) this process serves, both doors together; at most MAX_STREAMS_PER_PROCESS.',
    () => streams.active,
    { anonymous: true },
  );
  const grpc = createGrpcServer({
    streams,
    operations: createTypedServices(deps),
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
    recordHeaderUse: createHeaderUseRecorder({ stream: r.auditStream, clock }),
    clock,
    logger,
    metrics,
    tracing: r.tracing,
    admission: {
      limits: {
        limit: config.maxInFlightCalls,
        maxQueue: config.admissionQueueLength,
        maxWaitMs: config.admissionMaxWaitMs,
      },
      admittedToken: r.admittedToken,
    },
  });
  const port = await grpc.listen(config.host, config.grpcPort);
  // tryShutdown waits for every call; one stuck on a hung store is cut off after the grace period.
  lifetime.defer(async () => {
    const timer = setTimeout(() => grpc.server.forceShutdown(), DRAIN_GRACE_MS);
    await grpc.stop();
    clearTimeout(timer);
  });
  // Health reflects whether the stores answer (each check bounded), so /readyz and gRPC health agree.
  const healthProbe = setInterval(() => {
    const sent = performance.now();
    void probe.check().then((h) => {
      if (h.redis) metrics.redisDuration.observe({ op: 'ping' }, (performance.now() - sent) / 1000);
      grpc.health.setStatus('', !lifetime.draining && notReadyReason(h) === undefined ? 'SERVING' : 'NOT_SERVING');
    });
  }, HEALTH_PROBE_INTERVAL_MS);
  healthProbe.unref();
  lifetime.onDrain(() => grpc.health.setStatus('', 'NOT_SERVING'));
  lifetime.defer(() => clearInterval(healthProbe));
  return { port, inProcess: grpc.inProcess };
}
