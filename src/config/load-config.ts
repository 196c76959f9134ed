import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '../observability/create-logger.js';
import type { GatewayAnswers } from '../grpc/answer-forms.js';

/** Which parts of the service a process runs. */
export type Role = 'gateway' | 'grpc' | 'workers';

/** Settings read from the environment (README "Configuration"). */
export interface Config {
  host: string;
  port: number;
  grpcPort: number;
  /** Remote gRPC target for a gateway-only process; unset = the in-process server. */
  grpcTarget: string | undefined;
  roles: Set<Role>;
  dataDir: string;
  redisUrl: string | undefined;
  databaseUrl: string | undefined;
  bootstrapPlatformKey: string | undefined;
  resolutionTtlSeconds: number;
  /** Providers the in-memory graph cache may hold over all organizations (heap: ~3.7 KB each). */
  graphCacheMaxProviders: number;
  webhookRetryDelaysSeconds: number[];
  rateLimitPerMinute: number;
  /** Failed authentications per client address and minute; beyond, 429 (FAILED_AUTH_LIMIT_PER_MINUTE; 0 = none). */
  failedAuthLimitPerMinute: number;
  publicBaseUrl: string;
  smtpUrl: string | undefined;
  webhookAllowInsecureUrls: boolean;
  /** pino level of the service's JSON log lines (LOG_LEVEL, default `info`). */
  logLevel: LogLevel;
  /** Admission units of REST requests worked on at once under sustained load (MAX_IN_FLIGHT_REQUESTS; 0 = no limit). */
  maxInFlightRequests: number;
  /** Admission units of direct gRPC calls worked on at once under sustained load (MAX_IN_FLIGHT_CALLS; 0 = no limit). */
  maxInFlightCalls: number;
  /** Units both doors admit in a burst while the process is not saturated (MAX_IN_FLIGHT_BURST). */
  maxInFlightBurst: number;
  /** Callers that may wait for a PostgreSQL connection; beyond, 503 at once (PG_POOL_MAX_WAITERS; 0 = no limit). */
  pgPoolMaxWaiters: number;
  /** How long the service waits on PostgreSQL and Redis (README "Hung stores and deadlines"). */
  storeTimeouts: StoreTimeouts;
  /** How the gateway takes answers to typed calls (GATEWAY_ANSWERS: json, typed or check; see create-gateway.ts). */
  gatewayAnswers: GatewayAnswers;
}

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

/** Reads LOG_LEVEL: one of the pino levels or `silent`; anything else fails start-up with a message naming it. */
function logLevelSetting(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'info';
  const level = raw.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level as LogLevel;
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
    dataDir: resolve(env.DATA_DIR ?? './.data'),
    redisUrl: env.REDIS_URL || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    bootstrapPlatformKey: env.SERVICE_BOOTSTRAP_PLATFORM_KEY || undefined,
    resolutionTtlSeconds: intSetting(env, 'RESOLUTION_TTL_SECONDS', 300),
    graphCacheMaxProviders: intSetting(env, 'GRAPH_CACHE_MAX_PROVIDERS', 50_000),
    webhookRetryDelaysSeconds: delays,
    rateLimitPerMinute: intSetting(env, 'RATE_LIMIT_PER_MINUTE', 1200),
    failedAuthLimitPerMinute: intSetting(env, 'FAILED_AUTH_LIMIT_PER_MINUTE', 300),
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    smtpUrl: env.SMTP_URL || undefined,
    webhookAllowInsecureUrls: env.WEBHOOK_ALLOW_INSECURE_URLS === '1',
    gatewayAnswers: gatewayAnswersSetting(env.GATEWAY_ANSWERS),
    logLevel: logLevelSetting(env.LOG_LEVEL),
    maxInFlightRequests: intSetting(env, 'MAX_IN_FLIGHT_REQUESTS', 16),
    maxInFlightCalls: intSetting(env, 'MAX_IN_FLIGHT_CALLS', 16),
    maxInFlightBurst: intSetting(env, 'MAX_IN_FLIGHT_BURST', 64),
    pgPoolMaxWaiters: intSetting(env, 'PG_POOL_MAX_WAITERS', 32),
    storeTimeouts: {
      pgStatementMs: intSetting(env, 'PG_STATEMENT_TIMEOUT_MS', 5000),
      pgLockMs: intSetting(env, 'PG_LOCK_TIMEOUT_MS', 2000),
      pgPoolWaitMs: intSetting(env, 'PG_POOL_WAIT_MS', 2000),
      pgTransactionMs: intSetting(env, 'PG_TRANSACTION_TIMEOUT_MS', 6000),
      redisCommandMs: intSetting(env, 'REDIS_COMMAND_TIMEOUT_MS', 2000),
    },
  };
}

/** GATEWAY_ANSWERS: `json` (default), `typed` or `check`. */
function gatewayAnswersSetting(value: string | undefined): GatewayAnswers {
  if (value === undefined || value === '') return 'json';
  if (value === 'json' || value === 'typed' || value === 'check') return value;
  throw new Error(`GATEWAY_ANSWERS must be json, typed or check (got ${JSON.stringify(value.slice(0, 20))})`);
}
