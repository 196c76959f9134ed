import pg from 'pg';
import { newProviderState } from '../src/application/provider-changes.js';
import { CreateProviderBody } from '../src/contract/schemas/provider.js';
import { newId } from '../src/persistence/new-id.js';
import { createSeededRandom } from '../test/helpers/seeded-random.js';
import { measurementRow, renderReport } from './bench-report.js';
import { createBenchClient, createHttpTarget, expectStatus } from './bench-client.js';
import { newPlatformKey, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { adequacyTargets, targetLine } from './bench-targets.js';
import type { MeasureContext } from './measure-scenario.js';
import { ADEQUACY_DIMENSIONS, benchNetworkAdequacy } from './network-adequacy-bench.js';
import { generateProviders } from './provider-mix.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';
import { benchGet } from './get-load.js';

/**
 * Network adequacy over 100,000 resolutions (`npm run bench:adequacy`, issue 24): on fresh stores, one service process,
 * one organization of QUICK_PROVIDERS providers (the bench's mix, written by SQL), QUICK_RESOLUTIONS resolutions seeded
 * by SQL over 90 days, then GET /api/v2/analytics/network-adequacy?period=last_90_days of each dimension, each as a
 * share of a raw node:http hello-world measured in the same run, and last GET /api/v2/organizations/:id on the same
 * service (the floor: what any read costs on the machine as loaded then). Target: p99 under 200 ms.
 *   QUICK_SECONDS=5 (each measured phase)   QUICK_CLIENTS=1   QUICK_PROVIDERS=10000   QUICK_RESOLUTIONS=100000
 */
const PHASE_MS = Number(process.env.QUICK_SECONDS ?? 5) * 1000;
const CLIENTS = Number(process.env.QUICK_CLIENTS ?? 1);
const PROVIDERS = Number(process.env.QUICK_PROVIDERS ?? 10_000);
const RESOLUTIONS = Number(process.env.QUICK_RESOLUTIONS ?? 100_000);
const log = (line: string) => console.log(`[adequacy ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Writes `count` providers of the bench's mix into the organization by SQL (no services: adequacy only counts them). */
async function seedProviders(databaseUrl: string, organizationId: string, count: number, nowMs: number) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { platform_id } = (await db.query('SELECT platform_id FROM organizations WHERE id = $1', [organizationId]))
      .rows[0];
    const states = generateProviders(createSeededRandom(20_260_301), count, nowMs).map((g) =>
      newProviderState(CreateProviderBody.parse(g.row)),
    );
    await db.query(
      `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
       SELECT unnest($1::text[]), $2, $3, unnest($4::text[]), unnest($5::text[]), unnest($6::boolean[]), unnest($7::jsonb[]), 1, now(), now()`,
      [
        states.map(() => newId('prv')),
        platform_id,
        organizationId,
        states.map((s) => s.externalId),
        states.map((s) => s.status),
        states.map((s) => s.searchable),
        states.map((s) => JSON.stringify(s.doc)),
      ],
    );
    await db.query('VACUUM (ANALYZE) providers');
  } finally {
    await db.end();
  }
}

const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [CLIENTS], durationMs: PHASE_MS, tally, log });
const rawRow = raw.byClients.get(CLIENTS)!;
log(
  `  raw@${CLIENTS}: ${rawRow.perSecond.toFixed(0)} req/s, p50 ${rawRow.latency.p50.toFixed(2)} ms, p99 ${rawRow.latency.p99.toFixed(2)} ms`,
);
const stores = await startBenchStores();
let service: BenchService | undefined;
stopOnSignal(async () => {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
});
try {
  const key = newPlatformKey();
  service = await startBenchService(stores, key);
  const target = createHttpTarget(service.url);
  const created = expectStatus(
    await createBenchClient(target, { key, tally }).post('/api/v2/organizations', {
      externalId: 'bench-adequacy',
      name: 'Bench organization',
    }),
    'POST /api/v2/organizations',
  );
  const organizationId = (created.body as { id: string }).id;
  const nowMs = Date.now();
  log(`${PROVIDERS} providers by SQL`);
  await seedProviders(stores.databaseUrl, organizationId, PROVIDERS, nowMs);
  const platform = createBenchClient(target, { key, headers: { 'service-organization-id': organizationId }, tally });
  const ctx: MeasureContext = {
    tally,
    processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
    serviceUrl: service.url,
  };
  const result = await benchNetworkAdequacy(
    {
      api: platform,
      databaseUrl: stores.databaseUrl,
      organizationId,
      resolutions: RESOLUTIONS,
      dimensions: ADEQUACY_DIMENSIONS,
      concurrency: CLIENTS,
      durationMs: PHASE_MS,
      nowMs,
      rnd: createSeededRandom(20_261_124),
      log,
    },
    ctx,
  );
  // The floor on the same service and machine: a read that does next to nothing (the organization, cached), so a loaded
  // machine's latency can be told apart from the adequacy read's own.
  log(`  GET /api/v2/organizations/:id (the floor), ${CLIENTS} client(s) (${PHASE_MS / 1000} s)`);
  const floor = await benchGet(
    {
      id: `org-get.floor.c${CLIENTS}`,
      label: `GET /api/v2/organizations/:id (floor), ${CLIENTS} client(s)`,
      api: platform,
      path: `/api/v2/organizations/${organizationId}`,
      concurrency: CLIENTS,
      durationMs: PHASE_MS,
    },
    ctx,
  );
  const sample = await platform.get('/api/v2/analytics/network-adequacy?period=last_90_days&dimension=language');
  log(`language: ${sample.status} ${JSON.stringify(sample.body).slice(0, 600)}`);
  console.log('');
  console.log(
    renderReport([
      ...[...result.byDimension.values()].map((m) => measurementRow(raw, 'adequacy', m)),
      measurementRow(raw, 'floor', floor),
    ]),
  );
  console.log('');
  for (const check of adequacyTargets(result)) console.log(targetLine(check));
  await target.close();
} finally {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
