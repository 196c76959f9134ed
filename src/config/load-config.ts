import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '../observability/create-logger.js';
import { SAMPLER_NAMES, type SamplerName, type TracingConfig } from '../observability/tracing-config.js';
import { DEFAULT_MAX_LIMIT, DEFAULT_MAX_QUEUE, DEFAULT_MAX_WAIT_MS } from '../admission/admission-queue.js';
import { parseRedisClusterNodes, redisClusterUrl } from '../persistence/redis-cluster-client.js';

/** Which parts of the service a process runs. */
export type Role = 'gateway' | 'grpc' | 'workers';

/** Settings read from the environment (docs/configuration.md). */
export interface Config {
  host: string;
  port: number;
  grpcPort: number;
  /** Remote gRPC target for a gateway-only process; unset = the in-process server. */
  grpcTarget: string | undefined;
  roles: Set<Role>;
  /** Worker processes `npm start` forks to share PORT and GRPC_PORT (SERVICE_PROCESSES, default 1 = no fork). */
  serviceProcesses: number;
  dataDir: string;
  redisUrl: string | undefined;
  databaseUrl: string | undefined;
  /**
   * How DATABASE_URL reaches PostgreSQL (DATABASE_POOL_MODE, default `auto`): `direct` (a server, or a pooler keeping a
   * server connection per client), `transaction` (a pooler such as PgBouncer in transaction pooling mode: no session
   * state between transactions) or `auto` (told apart at start-up; docs/configuration.md).
   */
  databasePoolMode: DatabasePoolMode;
  bootstrapPlatformKey: string | undefined;
  resolutionTtlSeconds: number;
  /**
   * Estimated heap (bytes) the in-memory graph cache may hold over all organizations (GRAPH_CACHE_MAX_MB, default
   * 256); graph snapshots read back for candidates get half as much more.
   */
  graphCacheMaxBytes: number;
  /** Also bounds the providers the graph cache holds, when set (GRAPH_CACHE_MAX_PROVIDERS; unset: no such bound). */
  graphCacheMaxProviders: number | undefined;
  /**
   * Graphs of at least this many providers get a snapshot stored in PostgreSQL per version, which later loads read in
   * one statement (GRAPH_SNAPSHOT_MIN_PROVIDERS, default 2000; 0: every graph).
   */
  graphSnapshotMinProviders: number;
  /**
   * The longest a starting process spends loading the graphs of recently resolved large organizations (those with a
   * stored snapshot) before it serves (GRAPH_WARM_UP_SECONDS, default 30; 0: none), in milliseconds.
   */
  graphWarmUpMs: number;
  webhookRetryDelaysSeconds: number[];
  rateLimitPerMinute: number;
  /** Failed authentications per client address and minute; beyond, 429 (FAILED_AUTH_LIMIT_PER_MINUTE; 0 = none). */
  failedAuthLimitPerMinute: number;
  publicBaseUrl: string;
  smtpUrl: string | undefined;
  /**
   * OUTBOUND_ALLOW_INSECURE_URLS=1 (or its older name WEBHOOK_ALLOW_INSECURE_URLS=1; development and tests only): every
   * outbound call (webhooks, calendar feeds) may use http and reach loopback, private and other non-public addresses.
   * Unset: webhooks need https, feeds https or http, and both reach public addresses only.
   */
  outboundAllowInsecureUrls: boolean;
  /** pino level of the service's JSON log lines (LOG_LEVEL, default `info`). */
  logLevel: LogLevel;
  /** The most REST requests run at once (the adaptive limit stays below); the rest wait (MAX_IN_FLIGHT_REQUESTS; 0 = no limit). */
  maxInFlightRequests: number;
  /** The most direct gRPC calls run at once; the rest wait in a queue (MAX_IN_FLIGHT_CALLS; 0 = no limit). */
  maxInFlightCalls: number;
  /** Requests or calls each door's admission queue holds (ADMISSION_QUEUE_LENGTH); beyond, 503 at once. */
  admissionQueueLength: number;
  /** The longest a request or call waits in an admission queue to start (ADMISSION_MAX_WAIT_MS). */
  admissionMaxWaitMs: number;
  /** Callers that may wait for a PostgreSQL connection; beyond, 503 at once (PG_POOL_MAX_WAITERS; 0 = no limit). */
  pgPoolMaxWaiters: number;
  /** How long the service waits on PostgreSQL and Redis (docs/operations.md "Hung stores and deadlines"). */
  storeTimeouts: StoreTimeouts;
  /** Bearer token GET /metrics requires for the full exposition (METRICS_TOKEN); unset: anonymous, reduced on PORT. */
  metricsToken: string | undefined;
  /** Port of a listener of its own serving GET /metrics in full, bound to HOST (METRICS_PORT; unset: none; 0: any). */
  metricsPort: number | undefined;
  /** Bounds on long-lived server streams (inspector follows; docs/configuration.md `MAX_STREAMS_*`). */
  streamLimits: StreamLimits;
  /**
   * OpenTelemetry trace export (docs/tracing.md): set when OTEL_EXPORTER_OTLP_ENDPOINT (or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is; unset, the service traces nothing and exports nothing.
   */
  tracing: TracingConfig | undefined;
  /** Origins whose browser pages may call the REST API (CORS_ORIGINS, comma-separated; default none). */
  corsOrigins: string[];
}

/** The values of DATABASE_POOL_MODE. */
export const DATABASE_POOL_MODES = ['auto', 'direct', 'transaction'] as const;
/** How DATABASE_URL reaches PostgreSQL: straight (or session-pooled), through a transaction pooler, or found out. */
export type DatabasePoolMode = (typeof DATABASE_POOL_MODES)[number];

/**
 * Reads REDIS_URL or REDIS_CLUSTER_NODES (a comma-separated `host:port` list, written as the `redis-cluster://` URL
 * the service passes on, so forked workers get the same setting); both naming different stores fail start-up. Unset: a
 * private server.
 */
function redisUrlSetting(env: NodeJS.ProcessEnv): string | undefined {
  const nodes = env.REDIS_CLUSTER_NODES?.trim();
  if (!nodes) return env.REDIS_URL || undefined;
  const url = redisClusterUrl(parseRedisClusterNodes(nodes));
  // A forked worker inherits REDIS_CLUSTER_NODES and is handed REDIS_URL: the same cluster URL.
  if (env.REDIS_URL && env.REDIS_URL !== url) throw new Error('Set REDIS_URL or REDIS_CLUSTER_NODES, not both');
  return url;
}

/**
 * Reads a setting that takes one of `values` (case-insensitive; unset or empty: `fallback`); anything else fails
 * start-up with a message naming the setting and its values.
 */
function choiceSetting<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (!(values as readonly string[]).includes(value))
    throw new Error(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return value as T;
}

/** Bounds on server streams open at once: beyond a key's or an organization's, 429; beyond the process's, 503. */
export interface StreamLimits {
  /** Streams one API key may hold open over the whole cluster (MAX_STREAMS_PER_KEY, default 10). */
  perKey: number;
  /** Streams open in one organization over the whole cluster, all keys together (MAX_STREAMS_PER_ORGANIZATION, 50). */
  perOrganization: number;
  /** Streams one process serves at once, both doors together (MAX_STREAMS_PER_PROCESS, default 256). */
  perProcess: number;
}

/**
 * The most streams a process may be set to serve: below the 1,000 concurrent calls of one gRPC connection
 * (grpc-channel-options.ts), so the gateway's stream connection always has room for the refusals beyond the limit.
 */
export const MAX_STREAMS_PER_PROCESS_CEILING = 900;

/** Bounds on waiting for the stores, in milliseconds (0 = no bound). */
export interface StoreTimeouts {
  /** PostgreSQL `statement_timeout` and `idle_in_transaction_session_timeout` (PG_STATEMENT_TIMEOUT_MS, default 5000). */
  pgStatementMs: number;
  /** PostgreSQL `lock_timeout` (PG_LOCK_TIMEOUT_MS, default 2000). */
  pgLockMs: number;
  /** Wait for a pool connection, a new one included (PG_POOL_WAIT_MS, default 2000). */
  pgPoolWaitMs: number;
  /** Longest life of a transaction run for a call: past it, it cannot commit (PG_TRANSACTION_TIMEOUT_MS, default 6000). */
  pgTransactionMs: number;
  /** Wait for a Redis reply (REDIS_COMMAND_TIMEOUT_MS, default 2000). */
  redisCommandMs: number;
}

/** Reads a positive integer setting, failing with a message that names it. */
function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** Shortest METRICS_TOKEN accepted: a guessable token would open the full exposition to anyone. */
const METRICS_TOKEN_MIN_LENGTH = 16;

/** Reads METRICS_TOKEN: unset or empty means none; a short one fails start-up with a message that says why. */
function metricsTokenSetting(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(raw))
    throw new Error(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters without spaces (e.g. openssl rand -hex 32)`,
    );
  return raw;
}

/**
 * Reads CORS_ORIGINS: comma-separated origins as browsers send them (`https://app.example.com`, `http://localhost:3000`:
 * scheme, host and a port other than the scheme's default; no path, no trailing slash). Anything else, `*` and `null`
 * included, fails start-up with a message naming it: allowed origins are listed one by one.
 */
function corsOriginsSetting(raw: string | undefined): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of origins) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== o)
      throw new Error(
        `CORS_ORIGINS: "${o}" is not an origin such as https://app.example.com (scheme, host and port only, no path or trailing slash; no wildcard)`,
      );
  }
  return [...new Set(origins)];
}

/**
 * Reads the OTEL_* settings the service honours: an OTLP/HTTP endpoint turns tracing on (OTEL_SDK_DISABLED=true keeps
 * it off); a bad URL, sampler or ratio fails start-up with a message naming the setting.
 */
function tracingSetting(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // The specification's rule: the signal's own URL as given; the base one with `v1/traces` appended.
  const endpoint = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!endpoint) return undefined;
  const name = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`${name} must be an http or https URL (e.g. http://127.0.0.1:4318), got "${traces || base}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${name} must be an http or https URL (OTLP over HTTP), got "${traces || base}"`);
  const sampler = (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on') as SamplerName;
  if (!SAMPLER_NAMES.includes(sampler))
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLER_NAMES.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`);
  const ratioRaw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const samplerRatio = ratioRaw ? Number(ratioRaw) : 1;
  if (!Number.isFinite(samplerRatio) || samplerRatio < 0 || samplerRatio > 1)
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${ratioRaw}"`);
  return { endpoint: url.href, serviceName: env.OTEL_SERVICE_NAME?.trim() || 'scheduling', sampler, samplerRatio };
}

/** The most worker processes SERVICE_PROCESSES may ask for: more than a host has cores only adds contention. */
export const MAX_SERVICE_PROCESSES = 64;

/** Reads SERVICE_PROCESSES: 1 to MAX_SERVICE_PROCESSES; anything else fails start-up with a message naming it. */
function serviceProcessesSetting(env: NodeJS.ProcessEnv): number {
  const n = intSetting(env, 'SERVICE_PROCESSES', 1);
  if (n < 1 || n > MAX_SERVICE_PROCESSES)
    throw new Error(`SERVICE_PROCESSES must be between 1 and ${MAX_SERVICE_PROCESSES}, got ${n}`);
  return n;
}

/** Builds the configuration from environment variables. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intSetting(env, 'PORT', 8080);
  const rolesRaw = (env.SERVICE_ROLES ?? 'gateway,grpc,workers')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const roles = new Set<Role>();
  for (const r of rolesRaw) {
    if (r !== 'gateway' && r !== 'grpc' && r !== 'workers')
      throw new Error(`SERVICE_ROLES: unknown role "${r}" (use gateway, grpc, workers)`);
    roles.add(r);
  }
  const delays = (env.WEBHOOK_RETRY_DELAYS_SECONDS ?? '60,300,1800,7200').split(',').map((s) => Number(s.trim()));
  if (delays.some((d) => !Number.isFinite(d) || d < 0))
    throw new Error('WEBHOOK_RETRY_DELAYS_SECONDS must be a comma-separated list of seconds');
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    grpcPort: intSetting(env, 'GRPC_PORT', 50051),
    grpcTarget: env.GRPC_TARGET || undefined,
    roles,
    serviceProcesses: serviceProcessesSetting(env),
    dataDir: resolve(env.DATA_DIR ?? './.data'),
    redisUrl: redisUrlSetting(env),
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolMode: choiceSetting(env, 'DATABASE_POOL_MODE', DATABASE_POOL_MODES, 'auto'),
    bootstrapPlatformKey: env.SERVICE_BOOTSTRAP_PLATFORM_KEY || undefined,
    resolutionTtlSeconds: intSetting(env, 'RESOLUTION_TTL_SECONDS', 300),
    graphCacheMaxBytes: intSetting(env, 'GRAPH_CACHE_MAX_MB', 256) * 1024 * 1024,
    graphCacheMaxProviders: env.GRAPH_CACHE_MAX_PROVIDERS ? intSetting(env, 'GRAPH_CACHE_MAX_PROVIDERS', 0) : undefined,
    graphSnapshotMinProviders: intSetting(env, 'GRAPH_SNAPSHOT_MIN_PROVIDERS', 2000),
    graphWarmUpMs: intSetting(env, 'GRAPH_WARM_UP_SECONDS', 30) * 1000,
    webhookRetryDelaysSeconds: delays,
    rateLimitPerMinute: intSetting(env, 'RATE_LIMIT_PER_MINUTE', 1200),
    failedAuthLimitPerMinute: intSetting(env, 'FAILED_AUTH_LIMIT_PER_MINUTE', 300),
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    smtpUrl: env.SMTP_URL || undefined,
    outboundAllowInsecureUrls: env.OUTBOUND_ALLOW_INSECURE_URLS === '1' || env.WEBHOOK_ALLOW_INSECURE_URLS === '1',
    metricsToken: metricsTokenSetting(env.METRICS_TOKEN),
    metricsPort:
      env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : intSetting(env, 'METRICS_PORT', 0),
    streamLimits: streamLimitsSetting(env),
    corsOrigins: corsOriginsSetting(env.CORS_ORIGINS),
    tracing: tracingSetting(env),
    logLevel: choiceSetting(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    maxInFlightRequests: intSetting(env, 'MAX_IN_FLIGHT_REQUESTS', DEFAULT_MAX_LIMIT),
    maxInFlightCalls: intSetting(env, 'MAX_IN_FLIGHT_CALLS', DEFAULT_MAX_LIMIT),
    admissionQueueLength: intSetting(env, 'ADMISSION_QUEUE_LENGTH', DEFAULT_MAX_QUEUE),
    admissionMaxWaitMs: intSetting(env, 'ADMISSION_MAX_WAIT_MS', DEFAULT_MAX_WAIT_MS),
    pgPoolMaxWaiters: intSetting(env, 'PG_POOL_MAX_WAITERS', 128),
    storeTimeouts: {
      pgStatementMs: intSetting(env, 'PG_STATEMENT_TIMEOUT_MS', 5000),
      pgLockMs: intSetting(env, 'PG_LOCK_TIMEOUT_MS', 2000),
      pgPoolWaitMs: intSetting(env, 'PG_POOL_WAIT_MS', 2000),
      pgTransactionMs: intSetting(env, 'PG_TRANSACTION_TIMEOUT_MS', 6000),
      redisCommandMs: intSetting(env, 'REDIS_COMMAND_TIMEOUT_MS', 2000),
    },
  };
}

/** MAX_STREAMS_PER_KEY, _ORGANIZATION and _PROCESS: each at least 1 (a stream limit of 0 would refuse every stream). */
function streamLimitsSetting(env: NodeJS.ProcessEnv): StreamLimits {
  const limits = {
    perKey: intSetting(env, 'MAX_STREAMS_PER_KEY', 10),
    perOrganization: intSetting(env, 'MAX_STREAMS_PER_ORGANIZATION', 50),
    perProcess: intSetting(env, 'MAX_STREAMS_PER_PROCESS', 256),
  };
  for (const [name, n] of [
    ['MAX_STREAMS_PER_KEY', limits.perKey],
    ['MAX_STREAMS_PER_ORGANIZATION', limits.perOrganization],
    ['MAX_STREAMS_PER_PROCESS', limits.perProcess],
  ] as const)
    if (n < 1) throw new Error(`${name} must be at least 1, got ${n}`);
  if (limits.perProcess > MAX_STREAMS_PER_PROCESS_CEILING)
    throw new Error(
      `MAX_STREAMS_PER_PROCESS must be at most ${MAX_STREAMS_PER_PROCESS_CEILING} (one gRPC connection carries 1,000 calls), got ${limits.perProcess}`,
    );
  return limits;
}
