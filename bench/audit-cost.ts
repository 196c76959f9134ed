import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config/load-config.js';
import { startEmbeddedPostgres } from '../src/launcher/embedded-postgres.js';
import { startPrivateRedis } from '../src/launcher/private-redis.js';
import { startService } from '../src/start-service.js';

/**
 * What the audit costs PostgreSQL per request (`npx tsx bench/audit-cost.ts`): fresh private stores with
 * pg_stat_statements, the whole service in this process, one organization, then AUDIT_N header reads
 * (`GET /api/v2/organizations/:id` with Service-Organization-Id) and AUDIT_N header writes (`POST /api/v2/ranking-policies`,
 * which lock no row of their own), AUDIT_CLIENTS at a time. After each phase the audit pipeline is flushed (when the build has one),
 * so batched work done after the answers is counted too. Prints, per phase, requests/s and the PostgreSQL
 * execution time (lock waits included) per request: all top-level statements, and those that touch the audit tables.
 */
const N = Number(process.env.AUDIT_N ?? 2000);
const CLIENTS = Number(process.env.AUDIT_CLIENTS ?? 8);
const dir = mkdtempSync(join(tmpdir(), 'audit-cost-'));
const pgs = await startEmbeddedPostgres({
  dir: join(dir, 'postgres'),
  extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'],
});
const redis = await startPrivateRedis({ dir: join(dir, 'redis') });
const platformKey = `service_test_${randomBytes(24).toString('base64url')}`;
const service = await startService(
  loadConfig({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    REDIS_URL: redis.url,
    DATABASE_URL: pgs.url,
    DATA_DIR: dir,
    SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
    RATE_LIMIT_PER_MINUTE: '100000000',
  }),
  { log: () => undefined },
);
const stats = new pg.Pool({ connectionString: pgs.url, max: 1 });
await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
const base = `http://127.0.0.1:${service.httpPort}`;
const flush = async () => {
  await (service as unknown as { audit?: { flush(): Promise<void> } }).audit?.flush();
};

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<number> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${platformKey}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

async function phase(label: string, request: (i: number) => Promise<number>) {
  await stats.query('SELECT pg_stat_statements_reset()');
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < N) {
        const i = next++;
        const status = await request(i);
        if (status < 200 || status > 299) failures++;
      }
    }),
  );
  const ms = performance.now() - t0;
  await flush();
  // Top-level statements only: a trigger's statements are counted inside the statement that fired it. The times
  // include lock waits, which is what the old chain trigger cost.
  const r = await stats.query(`SELECT sum(total_exec_time) AS all_ms,
      sum(total_exec_time) FILTER (WHERE query ~* 'audit_(events|chain)') AS audit_ms
    FROM pg_stat_statements WHERE toplevel AND query !~* 'pg_stat_statements'`);
  const top =
    await stats.query(`SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 4) AS mean_ms, toplevel,
      left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
    FROM pg_stat_statements WHERE query ~* 'audit_(events|chain)' ORDER BY total_exec_time DESC LIMIT 8`);
  const row = r.rows[0];
  console.log(
    `${label}: ${(N / (ms / 1000)).toFixed(0)} req/s, ${failures} failures; PostgreSQL exec per request: all ${(Number(row.all_ms) / N).toFixed(3)} ms, audit statements ${(Number(row.audit_ms ?? 0) / N).toFixed(3)} ms`,
  );
  console.table(top.rows);
}

try {
  const org = (await (
    await fetch(`${base}/api/v2/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platformKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalId: 'audit-cost', name: 'Audit cost' }),
    })
  ).json()) as { id: string };
  const header = { 'service-organization-id': org.id };
  for (let i = 0; i < 200; i++) await call('GET', `/api/v2/organizations/${org.id}`, header);
  await flush();
  await phase(`header reads x${N}, ${CLIENTS} clients`, () => call('GET', `/api/v2/organizations/${org.id}`, header));
  await phase(`header writes x${N}, ${CLIENTS} clients`, (i) =>
    call('POST', '/api/v2/ranking-policies', header, { name: `Policy ${i}` }),
  );
} finally {
  await stats.end();
  await service.stop();
  await redis.stop();
  await pgs.stop();
  rmSync(dir, { recursive: true, force: true });
}
