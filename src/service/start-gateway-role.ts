import type { InProcessApi } from '../gateway/in-process-caller.js';
import { createServer } from 'node:http';
import { getClientChannel } from '@grpc/grpc-js';
import type { Config } from '../config/load-config.js';
import { createGateway } from '../gateway/create-gateway.js';
import { createHttpDrain } from '../gateway/create-http-drain.js';
import { closeGrpcClients, createGrpcClients, createStreamClients } from '../gateway/grpc-clients.js';
import { probeInternalApi } from '../gateway/probe-internal-api.js';
import { answerClientErrors } from '../gateway/answer-client-errors.js';
import { BODY_LIMIT_BYTES } from '../gateway/read-json-body.js';
import { ALL_ROUTES } from '../contract/routes/all-routes.js';
import { buildCapabilities, buildOpenApi } from '../contract/build-openapi.js';
import { HOLD_TTL_SECONDS } from '../contract/schemas/hold.js';
import { PROVIDERS_PER_IMPORT } from '../contract/schemas/provider-import.js';
import { MAX_DATE_RANGE_DAYS } from '../domain/availability/date-window.js';
import { OPTIONS_LIMIT } from '../domain/ranking/rank-options.js';
import { STORE_PROBE_TIMEOUT_MS, type StoreProbe } from '../persistence/store-probe.js';
import type { ServiceLogger } from '../observability/create-logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { Tracing } from '../observability/create-tracing.js';
import { ServiceError } from '../errors/service-error.js';
import { DRAIN_GRACE_MS, type Lifetime } from './lifetime.js';
import { listenHttp } from './listen-http.js';
import { notReadyReason } from './not-ready-reason.js';

/** The version /capabilities and openapi.json state. */
export const SERVICE_VERSION = '0.1.0';
// Longer than the 60 s idle timeout of common proxies and load balancers, so the proxy, not Node, closes an idle
// kept-alive connection and never sends a request on one Node just closed.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The deployment limits /capabilities lists, each taken from where it is enforced. */
function deploymentLimits(config: Config): Record<string, number> {
  return {
    providersPerImport: PROVIDERS_PER_IMPORT,
    searchWindowDays: MAX_DATE_RANGE_DAYS,
    optionsReturned: OPTIONS_LIMIT,
    holdTtlMaxSeconds: HOLD_TTL_SECONDS.max,
    resolutionTtlSeconds: config.resolutionTtlSeconds,
    rateLimitPerMinute: config.rateLimitPerMinute,
    bodyLimitBytes: BODY_LIMIT_BYTES,
  };
}

/** What the gateway role runs on. */
export interface GatewayRoleDeps {
  /** host:port of the gRPC server the gateway calls. */
  grpcTarget: string;
  /** Marks calls already admitted by this gateway, for the gRPC server of the same process. */
  admittedToken: string | undefined;
  /** The gRPC server of this same process, called in-process; undefined calls `grpcTarget` over the network. */
  inProcess?: InProcessApi;
  /** This process's own stores, which readiness checks besides the internal API. */
  probe: StoreProbe;
  lifetime: Lifetime;
  logger: ServiceLogger;
  metrics: ServiceMetrics;
  /** The service's clock: openapi.json's examples are dated from its day. */
  clock: () => Date;
  /** OpenTelemetry tracing, when on: a span per request, its context passed to the RPCs. */
  tracing?: Tracing | undefined;
}

/**
 * Starts the REST gateway (routes to gRPC calls, openapi.json, /capabilities, /readyz) on its HTTP port and answers
 * that port. With the lifetime: /readyz answers 503 as soon as a stop begins; the server then stops accepting and lets
 * in-flight requests finish for at most DRAIN_GRACE_MS, and then its gRPC clients close.
 */
export async function startGatewayRole(config: Config, g: GatewayRoleDeps): Promise<number> {
  const { lifetime, logger, metrics, probe } = g;
  const clients = createGrpcClients(g.grpcTarget);
  const streamClients = createStreamClients(g.grpcTarget);
  lifetime.defer(() => {
    closeGrpcClients(clients);
    closeGrpcClients(streamClients);
  });
  const internalApi = probeInternalApi(getClientChannel(clients.GatewayService), STORE_PROBE_TIMEOUT_MS);
  // openapi.json's examples are dated from the day it is served: built on its first request, then again on the first
  // request of each new day (its JSON Schemas are made once; a new day only dates the examples anew). Not at start:
  // building it costs about 0.3 s of CPU, which every process start paid, most of them never serving it.
  let openapi = { day: '', doc: undefined as unknown };
  const openapiOfToday = () => {
    const now = g.clock();
    const day = now.toISOString().slice(0, 10);
    if (openapi.day !== day) openapi = { day, doc: buildOpenApi(ALL_ROUTES, { version: SERVICE_VERSION, today: now }) };
    return openapi.doc;
  };
  const capabilities = buildCapabilities(ALL_ROUTES, { version: SERVICE_VERSION, limits: deploymentLimits(config) });
  const app = createGateway({
    routes: ALL_ROUTES,
    clients,
    streamClients,
    ...(g.inProcess ? { inProcess: g.inProcess } : {}),
    openapi: openapiOfToday,
    capabilities: () => capabilities,
    logger,
    metrics,
    tracing: g.tracing,
    admission: {
      limit: config.maxInFlightRequests,
      maxQueue: config.admissionQueueLength,
      maxWaitMs: config.admissionMaxWaitMs,
    },
    admittedToken: g.admittedToken,
    ...(config.metricsToken !== undefined ? { metricsToken: config.metricsToken } : {}),
    corsOrigins: config.corsOrigins,
    // Readiness asks the gRPC side (which probes its stores) on the connection the API's unary calls use, and checks
    // this process's own stores, all at once and each bounded, so /readyz answers within about a second even when a
    // store hangs, and says not ready when API calls could not get through.
    ready: async () => {
      if (lifetime.draining)
        throw new ServiceError('SERVICE_UNAVAILABLE', 'The service is shutting down.', { retryAfter: 1 });
      const [api, stores] = await Promise.all([internalApi(), probe.check()]);
      const reason =
        notReadyReason(stores) ??
        (api === 'serving'
          ? undefined
          : api === 'not-serving'
            ? 'The internal API reports Redis or PostgreSQL unreachable.'
            : `The internal API did not answer a health check within ${STORE_PROBE_TIMEOUT_MS} ms on the connection API calls use.`);
      if (reason !== undefined) throw new ServiceError('SERVICE_UNAVAILABLE', reason, { retryAfter: 1 });
      return true;
    },
  });
  const server = createServer(app.callback());
  // Requests Node refuses before Koa sees them (headers over 16 KB, malformed HTTP) still get the envelope.
  answerClientErrors(server, { logger, metrics });
  const drain = createHttpDrain(server);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const port = await listenHttp(server, config.port, config.host);
  lifetime.defer(() => drain.close(DRAIN_GRACE_MS));
  return port;
}
