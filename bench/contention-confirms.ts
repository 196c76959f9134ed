import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/load-config.js';
import { startEmbeddedPostgres } from '../src/launcher/embedded-postgres.js';
import { startPrivateRedis } from '../src/launcher/private-redis.js';
import { startService } from '../src/start-service.js';
import pgClient from 'pg';
import { confirmResolution } from '../src/application/booking/confirm-resolution.js';
import type { Caller } from '../src/application/caller.js';

/**
 * The contention scenario alone (`npx tsx bench/contention-confirms.ts`): CONTENTION_COUNT (200) resolutions of one
 * lone provider all offer its same first slot, then all their confirms are fired at once; exactly one must win and
 * every other answer must be 409 SLOT_UNAVAILABLE. Prints the 409 latencies per round (CONTENTION_ROUNDS, default 5,
 * each on a new day) and over all rounds. Like `npm run bench`, the service runs in this process (all roles, silent).
 * CONTENTION_DIR keeps the stores there (default: a fresh temporary directory, removed at the end).
 * With CONTENTION_HOLD=1 each confirm first holds its option (hold, then confirm with the hold) instead.
 * CONTENTION_PGSTAT=1 loads pg_stat_statements and prints what the write statements cost PostgreSQL (lock waits included).
 * CONTENTION_DIRECT=1 calls the confirm operation in this process instead of over HTTP (no gateway, gRPC, key lookup
 * or idempotency): what is left is the operation's own Redis reads and mirrors and its PostgreSQL work, lock waits included.
 */
const COUNT = Number(process.env.CONTENTION_COUNT ?? 200);
const ROUNDS = Number(process.env.CONTENTION_ROUNDS ?? 5);
const WITH_HOLD = Boolean(process.env.CONTENTION_HOLD);
const DIRECT = Boolean(process.env.CONTENTION_DIRECT);
const dir = process.env.CONTENTION_DIR ?? join(tmpdir(), `contention-${randomBytes(4).toString('hex')}`);
const keep = Boolean(process.env.CONTENTION_DIR);

/** p-th percentile (nearest rank) of sorted values. */
const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `n ${s.length}, p50 ${pct(s, 50).toFixed(1)} ms, p90 ${pct(s, 90).toFixed(1)} ms, p99 ${pct(s, 99).toFixed(1)} ms, max ${pct(s, 100).toFixed(1)} ms`;
};

mkdirSync(dir, { recursive: true });
const redis = await startPrivateRedis({ dir: join(dir, 'redis') });
const pgStat = Boolean(process.env.CONTENTION_PGSTAT);
const pg = await startEmbeddedPostgres({
  dir: join(dir, 'postgres'),
  ...(pgStat
    ? { extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] }
    : {}),
});
// Live: it creates the organization's live key, which only a live key may (CONTRACT part 2).
const platformKey = `service_live_${randomBytes(24).toString('base64url')}`;
const config = loadConfig({
  PORT: '0',
  GRPC_PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  REDIS_URL: redis.url,
  DATABASE_URL: pg.url,
  DATA_DIR: dir,
  SERVICE_BOOTSTRAP_PLATFORM_KEY: platformKey,
  RATE_LIMIT_PER_MINUTE: '100000000',
  RESOLUTION_TTL_SECONDS: '3600',
});
const service = await startService(config, { log: () => undefined });
const base = `http://127.0.0.1:${service.httpPort}`;

/** One JSON call: status, body and wall time (sending to the whole body read). */
async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ms };
}
async function must(what: string, p: ReturnType<typeof call>) {
  const r = await p;
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body;
}

try {
  const org = await must(
    'organization',
    call(platformKey, 'POST', '/api/v2/organizations', {
      externalId: `contention-${randomUUID().slice(0, 8)}`,
      name: 'Contention',
    }),
  );
  const key = (
    await must(
      'key',
      call(platformKey, 'POST', '/api/v2/api-keys', {
        type: 'organization_live',
        organizationId: org.id,
        name: 'bench',
      }),
    )
  ).key as string;
  const provider = await must(
    'provider',
    call(
      platformKey,
      'POST',
      '/api/v2/providers',
      { externalId: 'lone', displayName: 'Dr. Contention Target', languageCodes: ['en'], modalityCodes: ['virtual'] },
      { 'service-organization-id': org.id },
    ),
  );
  const svc = await must(
    'service',
    call(key, 'POST', '/api/v2/services', { providerId: provider.id, title: 'Intake Session', duration: 50 }),
  );
  const day = { enabled: true, slots: [{ start: '09:00', end: '17:00' }] };
  await must(
    'schedule',
    call(key, 'POST', '/api/v2/calendar-connections', {
      providerId: provider.id,
      timezone: 'UTC',
      days: Object.fromEntries(
        ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, day]),
      ),
    }),
  );
  if (pgStat) await service.deps.db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const caller: Caller = {
    requestId: 'req_bench',
    keyId: 'key_bench',
    keyType: 'organization_live',
    mode: 'live',
    platformId: org.platformId,
    organizationId: org.id,
    isPlatformKey: false,
    viaOrganizationHeader: false,
  };
  /** The confirm operation called in this process; errors answered like the gateway would (status and code). */
  const direct = async (resolutionId: string, input: Parameters<typeof confirmResolution>[3]) => {
    const t0 = performance.now();
    try {
      const body = await confirmResolution(
        service.deps,
        { ...caller, requestId: `req_${randomUUID()}` },
        resolutionId,
        input,
      );
      return { status: 200, body, ms: performance.now() - t0 };
    } catch (err) {
      const e = err as { status?: number; code?: string };
      return { status: e.status ?? 500, body: { error: { code: e.code ?? String(err) } }, ms: performance.now() - t0 };
    }
  };
  const all409: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const date = new Date(Date.now() + (3 + round) * 86_400_000).toISOString().slice(0, 10);
    const next = new Date(Date.parse(date) + 86_400_000).toISOString().slice(0, 10);
    const made: { resolutionId: string; optionId: string }[] = [];
    for (let i = 0; i < COUNT; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, COUNT - i) }, async () => {
          const r = await must(
            'resolution',
            call(
              key,
              'POST',
              '/api/v2/resolutions',
              { serviceId: svc.id, dateRange: { from: date, to: next }, maxOptionsPerProvider: 1 },
              { 'idempotency-key': randomUUID() },
            ),
          );
          made.push({ resolutionId: r.resolutionId, optionId: r.options[0].optionId });
        }),
      );
    }
    const customer = { name: 'Contender', email: 'contender@example.org' };
    // Sessions waiting for a lock (the claim lock: nothing else is locked here), sampled on a connection of its own
    // while the burst runs.
    let sampling = true;
    let maxWaiting = 0;
    const watcher = new pgClient.Client({ connectionString: pg.url });
    await watcher.connect();
    const sampler = (async () => {
      while (sampling) {
        const w = await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
        );
        maxWaiting = Math.max(maxWaiting, w.rows[0].n);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const t0 = performance.now();
    const answers = await Promise.all(
      made.map(async (m) => {
        let holdId: string | undefined;
        let holdMs = 0;
        if (WITH_HOLD) {
          const h = await call(key, 'POST', `/api/v2/resolutions/${m.resolutionId}/options/${m.optionId}/hold`, {
            ttlSeconds: 60,
          });
          if (h.status !== 200) return { ...h, step: 'hold' };
          holdId = h.body.holdId;
          holdMs = h.ms;
        }
        const c = DIRECT
          ? await direct(m.resolutionId, { optionId: m.optionId, customer, ...(holdId ? { holdId } : {}) })
          : await call(
              key,
              'POST',
              `/api/v2/resolutions/${m.resolutionId}/confirm`,
              { optionId: m.optionId, customer, ...(holdId ? { holdId } : {}) },
              { 'idempotency-key': randomUUID() },
            );
        return { ...c, ms: c.ms + holdMs, step: 'confirm' };
      }),
    );
    const wallMs = performance.now() - t0;
    sampling = false;
    await sampler;
    await watcher.end();
    const wins = answers.filter((a) => a.status === 200);
    const losses = answers.filter((a) => a.status === 409 && a.body?.error?.code === 'SLOT_UNAVAILABLE');
    const other = answers.filter(
      (a) => a.status !== 200 && !(a.status === 409 && a.body?.error?.code === 'SLOT_UNAVAILABLE'),
    );
    all409.push(...losses.map((a) => a.ms));
    console.log(
      `round ${round + 1} (${date}): ${answers.length} ${WITH_HOLD ? 'holds+confirms' : 'confirms'} in ${wallMs.toFixed(0)} ms; wins ${wins.length} (${wins[0]?.ms.toFixed(1) ?? '-'} ms); 409 SLOT_UNAVAILABLE ${summary(losses.map((a) => a.ms))}; at most ${maxWaiting} PostgreSQL sessions waiting for the claim lock at once${other.length ? `; OTHER ${JSON.stringify(other.slice(0, 3).map((a) => [a.step, a.status, a.body?.error?.code]))} x${other.length}` : ''}`,
    );
    if (wins.length !== 1) console.log(`  !! expected exactly one winner, got ${wins.length}`);
    if (pgStat && round === 0) await service.deps.db.query('SELECT pg_stat_statements_reset()');
  }
  if (pgStat) {
    const { rows } = await service.deps.db
      .query(`SELECT calls, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 2) AS mean_ms, round(max_exec_time::numeric, 1) AS max_ms,
      left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query FROM pg_stat_statements WHERE query ~* '(insert|update|lock|begin|commit|rollback)' ORDER BY total_exec_time DESC LIMIT 12`);
    console.log(`PostgreSQL time of rounds 2..${ROUNDS} (write statements, lock waits included):`);
    console.table(rows);
  }
  console.log(`all rounds: 409 ${summary(all409)}`);
} finally {
  await service.stop().catch(() => undefined);
  await pg.stop();
  await redis.stop();
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
