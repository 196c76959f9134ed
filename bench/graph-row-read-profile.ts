import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDatabase } from '../src/persistence/database.js';
import { GRAPH_ROW_QUERIES, GRAPH_ROW_SETTINGS } from '../src/persistence/organization-graph-rows.js';
import { readGraphColumns } from '../src/application/resolution/read-graph-columns.js';
import { openGraphColumns } from '../src/application/resolution/graph-columns.js';
import { assembleColumnGraph } from '../src/application/resolution/column-org-graph.js';
import { readGraphVersion } from '../src/persistence/organization-repository.js';
import { createHttpTarget } from './bench-client.js';
import { newPlatformKey, startBenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { seedLargeOrganization } from './large-organization.js';
import { formatLoad, machineInfo } from './machine-info.js';
import { ownCpuMs, processTreeCpuMs } from './process-cpu.js';
import { createResponseTally } from './response-tally.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';

/**
 * A graph's load from its rows in PostgreSQL, measured in this process (`tsx bench/graph-row-read-profile.ts`):
 * `readGraphColumns` (the service's load from the rows) of one organization seeded as bench:large-org seeds it, its
 * wall time, this process's CPU and PostgreSQL's (the postmaster's tree), then the columns opened and indexed; then
 * each of the load's queries: its cursor's plan and `EXPLAIN (ANALYZE, SERIALIZE, BUFFERS)` of the query, with the
 * load's settings (no sort) and with sorts allowed. No HTTP, no service process: what the first resolution
 * after a graph change pays for its graph, apart from the resolution.
 *   GRAPH_ROW_PROVIDERS=100000   GRAPH_ROW_RUNS=3 (loads, one after another)
 *   GRAPH_ROW_DIR=<dir> keeps the stores and the seeded organization there for the next run (seeding 100,000 takes
 *   minutes; without it, fresh stores in a temporary directory, removed at the end)
 *   GRAPH_ROW_EXPLAIN=1 (default) prints the plans
 */
const PROVIDERS = Number(process.env.GRAPH_ROW_PROVIDERS ?? 100_000);
const RUNS = Number(process.env.GRAPH_ROW_RUNS ?? 3);
const DIR = process.env.GRAPH_ROW_DIR;
const EXPLAIN = (process.env.GRAPH_ROW_EXPLAIN ?? '1') === '1';
const log = (line: string) => console.log(`[graph-row-read ${new Date().toISOString().slice(11, 19)}] ${line}`);

const stores = await startBenchStores(DIR ? { keepDir: DIR } : {});
try {
  const marker = join(stores.dir, `graph-row-read-${PROVIDERS}.json`);
  let organizationId: string;
  if (existsSync(marker)) {
    organizationId = (JSON.parse(readFileSync(marker, 'utf8')) as { organizationId: string }).organizationId;
    log(`organization ${organizationId} (${PROVIDERS} providers) seeded before, in ${stores.dir}`);
  } else {
    const key = newPlatformKey();
    const service = await startBenchService(stores, key, 'seed');
    const target = createHttpTarget(service.url);
    try {
      const lo = await seedLargeOrganization({
        target,
        tally: createResponseTally(),
        platformKey: key,
        databaseUrl: stores.databaseUrl,
        providerCount: PROVIDERS,
        apiProviders: 1,
        rowsPerImport: 1,
        nowMs: Date.now(),
        rnd: createSeededRandom(20_260_302),
        log,
      });
      organizationId = lo.organizationId;
    } finally {
      await target.close();
      await service.process.stop();
    }
    const admin = new pg.Client({ connectionString: stores.databaseUrl });
    await admin.connect();
    // As autovacuum would in time: the load is planned on the tables' real sizes, its pages all-visible.
    await admin.query('VACUUM ANALYZE providers, services, calendar_connections');
    await admin.end();
    writeFileSync(marker, JSON.stringify({ organizationId }));
  }
  const db = createDatabase(stores.databaseUrl, { max: 4 });
  try {
    const graphVersion = await readGraphVersion(db, organizationId);
    const key = { organizationId, graphVersion };
    for (let run = 1; run <= RUNS; run++) {
      const t0 = performance.now();
      const cpu0 = ownCpuMs();
      const pg0 = processTreeCpuMs(stores.postgresPid);
      const { columns } = await readGraphColumns(db, organizationId);
      const readMs = performance.now() - t0;
      const readCpu = ownCpuMs() - cpu0;
      const pgCpu = processTreeCpuMs(stores.postgresPid) - pg0;
      const t1 = performance.now();
      const cpu1 = ownCpuMs();
      const graph = assembleColumnGraph(organizationId, graphVersion, openGraphColumns(columns, key), Date.now(), {
        source: 'rows',
        snapshotStored: Promise.resolve(false),
      });
      const indexMs = performance.now() - t1;
      const indexCpu = ownCpuMs() - cpu1;
      log(
        `run ${run}: read ${readMs.toFixed(0)} ms wall (CPU here ${readCpu.toFixed(0)} ms, PostgreSQL ` +
          `${pgCpu.toFixed(0)} ms), open+index ${indexMs.toFixed(0)} ms wall (CPU ${indexCpu.toFixed(0)} ms); ` +
          `${graph.providerCount} providers, columns ${(columns.length / 1048576).toFixed(1)} MB, RSS ` +
          `${(process.memoryUsage().rss / 1048576).toFixed(0)} MB | load ${formatLoad(machineInfo().loadAverage)}`,
      );
    }
    if (EXPLAIN) {
      const client = await db.pool.connect();
      try {
        for (const [name, sql] of Object.entries(GRAPH_ROW_QUERIES)) {
          // As the load plans its cursor (its settings), then with sorts allowed (the planner's own choice).
          for (const settings of [GRAPH_ROW_SETTINGS, 'SET LOCAL cursor_tuple_fraction = 1.0']) {
            await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
            await client.query(settings);
            const declared = await client.query(`EXPLAIN DECLARE c NO SCROLL CURSOR FOR ${sql}`, [organizationId]);
            const analysed = await client.query(`EXPLAIN (ANALYZE, SERIALIZE TEXT, BUFFERS) ${sql}`, [organizationId]);
            await client.query('ROLLBACK');
            log(`${name} (${settings}): the cursor's plan, then EXPLAIN ANALYZE of its query`);
            for (const r of [...declared.rows, ...analysed.rows] as { 'QUERY PLAN': string }[])
              console.log(`    ${r['QUERY PLAN']}`);
          }
        }
      } finally {
        client.release();
      }
    }
  } finally {
    await db.close();
  }
} finally {
  await stores.stop();
}
