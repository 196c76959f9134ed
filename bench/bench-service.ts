import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServiceProcess, type ServiceProcess } from '../test/helpers/service-process.js';
import type { BenchStores } from './bench-stores.js';

/** A service process started by the bench, with its addresses and how long it took to become ready. */
export interface BenchService {
  process: ServiceProcess;
  pid: number;
  /** REST gateway base URL. */
  url: string;
  /** host:port of the internal gRPC API. */
  grpcTarget: string;
  /** From spawning `npm start`'s command until GET /readyz answered 200 (ms). */
  startMs: number;
  /** What the service itself printed ("ready in N ms"), when it did. */
  reportedReadyMs: number | undefined;
}

/** A platform key for the bootstrap setting (service_test_ + 32 URL-safe characters). */
export function newPlatformKey(): string {
  return `service_test_${randomBytes(24).toString('base64url')}`;
}

/** The METRICS_TOKEN the bench's services run with (new each run), so the bench reads their full /metrics. */
export const BENCH_METRICS_TOKEN = randomBytes(24).toString('hex');

/** The full /metrics exposition of a service the bench started. */
export async function benchMetrics(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${await res.text()}`);
  return res.text();
}

/**
 * The settings the bench runs the service with: the rate limit out of the way of the load, resolutions living
 * an hour (those made before a timed phase must not expire in it), logs silent unless BENCH_SERVICE_LOG_LEVEL says,
 * /metrics in full behind BENCH_METRICS_TOKEN. Admission runs with its production defaults in every row.
 */
export function benchServiceEnv(): Record<string, string> {
  return {
    RATE_LIMIT_PER_MINUTE: '100000000',
    RESOLUTION_TTL_SECONDS: '3600',
    // The webhook scenarios deliver to receivers on 127.0.0.1.
    WEBHOOK_ALLOW_INSECURE_URLS: '1',
    LOG_LEVEL: process.env.BENCH_SERVICE_LOG_LEVEL ?? 'silent',
    METRICS_TOKEN: BENCH_METRICS_TOKEN,
  };
}

/**
 * Starts the service as its own process with exactly the `npm start` command (test/helpers/service-process.ts)
 * on the bench stores and ephemeral 127.0.0.1 ports; `name` separates the data directories of several processes;
 * `env` overrides the bench's settings; `root`, another checkout of the service (an older commit's worktree), runs
 * that tree's `npm start` instead of this one's.
 */
export async function startBenchService(
  stores: BenchStores,
  platformKey: string,
  name = 'service',
  env: Readonly<Record<string, string>> = {},
  root?: string,
): Promise<BenchService> {
  const t0 = performance.now();
  const proc = await startServiceProcess({
    databaseUrl: stores.databaseUrl,
    redisUrl: stores.redisUrl,
    platformKey,
    dataDir: join(stores.dir, name),
    env: {
      ...benchServiceEnv(),
      ...env,
      ...(process.env.CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.CHILD_NODE_OPTIONS } : {}),
    },
    readyTimeoutMs: 180_000,
    ...(root ? { root } : {}),
  });
  const startMs = performance.now() - t0;
  const out = proc.output();
  const grpc = /gRPC:\s+(\S+:\d+)/.exec(out)?.[1];
  if (!grpc) {
    await proc.stop();
    throw new Error(`the service printed no gRPC address:\n${out}`);
  }
  const ready = /ready in (\d+) ms/.exec(out)?.[1];
  return {
    process: proc,
    pid: proc.pid,
    url: proc.url,
    grpcTarget: grpc,
    startMs,
    reportedReadyMs: ready === undefined ? undefined : Number(ready),
  };
}
