import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { processCpuMs, processTreeCpuMs } from './process-cpu.js';
import { countPostgresQueues, countRedisQueues } from '../src/persistence/queue-depths.js';
import { TIMER_KEYS } from '../src/persistence/redis-keys.js';
import type { Redis } from '../src/persistence/redis-client.js';

/** The counters `npm run bench:capacity` reads, each a running total (CPU in ms, sizes in bytes). */
export const COUNTER_FIELDS = [
  'serviceCpu',
  'postgresCpu',
  'redisCpu',
  'statements',
  'commits',
  'rowsWritten',
  'walBytes',
  'dbBytes',
  'redisCommands',
  'redisScripts',
  'redisInBytes',
  'redisAofBytes',
  'redisMemory',
  'auditPending',
  'reviewPending',
  'outboxEvents',
  'emails',
  'timers',
] as const;

/** One counter of COUNTER_FIELDS. */
export type CounterField = (typeof COUNTER_FIELDS)[number];

/** One reading of every counter at `ms` (performance.now()); a difference of two readings has the same shape. */
export type StoreCounters = { ms: number } & Record<CounterField, number>;

/** The fields of an INFO answer (`name:value` lines). */
function infoFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

/** Work waiting for the workers in a reading: audit and review stream entries, outbox events, e-mails. */
export function backlogOf(r: StoreCounters): number {
  return r.auditPending + r.reviewPending + r.outboxEvents + r.emails;
}

/**
 * Reads the counters of the service process `servicePid`, the PostgreSQL cluster and the Redis server:
 * CPU from /proc/<pid>/stat (PostgreSQL: postmaster and all its children); top-level statements (pg_stat_statements,
 * which the server must preload), commits, rows written, WAL position and database size; Redis commands run (INFO
 * commandstats, INFO itself left out) and script calls, bytes received, AOF size and memory used; and the queues of
 * the workers. `diff` answers what happened between two readings, less the reading's own statements and commands.
 */
export function createStoreCounters(o: {
  stats: pg.Client;
  redis: Redis;
  servicePid: number;
  postgresPid: number;
  redisPid: number;
}) {
  const read = async (): Promise<StoreCounters> => {
    const ms = performance.now();
    const serviceCpu = processTreeCpuMs(o.servicePid);
    const postgresCpu = processTreeCpuMs(o.postgresPid);
    const redisCpu = processCpuMs(o.redisPid);
    const row = (
      await o.stats.query(
        `SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE toplevel)::float8 AS statements,
                xact_commit::float8 AS commits, (tup_inserted + tup_updated + tup_deleted)::float8 AS rows_written,
                pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal, pg_database_size(datname)::float8 AS db
           FROM pg_stat_database WHERE datname = current_database()`,
      )
    ).rows[0];
    let redisCommands = 0;
    let redisScripts = 0;
    for (const m of String(await o.redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (m[1] === 'info') continue;
      redisCommands += Number(m[2]);
      if (/^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/.test(m[1]!)) redisScripts += Number(m[2]);
    }
    const info = infoFields(String(await o.redis.info('all')));
    const now = new Date();
    const pgQueues = await countPostgresQueues(o.stats, now);
    const redisQueues = await countRedisQueues(o.redis, now);
    return {
      ms,
      serviceCpu,
      postgresCpu,
      redisCpu,
      statements: row.statements,
      commits: row.commits,
      rowsWritten: row.rows_written,
      walBytes: row.wal,
      dbBytes: row.db,
      redisCommands,
      redisScripts,
      redisInBytes: Number(info.get('total_net_input_bytes')),
      redisAofBytes: Number(info.get('aof_current_size') ?? 0),
      redisMemory: Number(info.get('used_memory')),
      auditPending: redisQueues.auditStreamPending,
      reviewPending: redisQueues.reviewStreamPending,
      outboxEvents: pgQueues.webhookEventsUndispatched,
      emails: pgQueues.emailOutboxPending,
      timers: await o.redis.zCard(TIMER_KEYS.due),
    };
  };
  const diff = (a: StoreCounters, b: StoreCounters): StoreCounters => {
    const d = { ms: b.ms - a.ms } as StoreCounters;
    for (const f of COUNTER_FIELDS) d[f] = b[f] - a[f];
    // The reading's own statements and commits (two), and its Redis commands (the queue depths: five).
    d.statements -= 2;
    d.commits -= 2;
    d.redisCommands -= 5;
    return d;
  };
  return { read, diff };
}
