import { measurementRow, renderReport, type BenchRow } from './bench-report.js';
import { createBenchClient, createHttpTarget, expectStatus } from './bench-client.js';
import { newPlatformKey, startBenchService, type BenchService } from './bench-service.js';
import { startBenchStores } from './bench-stores.js';
import { orgGetTarget, targetLine } from './bench-targets.js';
import { benchGet } from './get-load.js';
import { benchGrpcGetOrganization } from './grpc-get-organization.js';
import type { MeasureContext } from './measure-scenario.js';
import { measureRawBaseline } from './raw-baseline.js';
import { createResponseTally } from './response-tally.js';
import { stopOnSignal } from './stop-on-signal.js';

/**
 * The REST gateway's own cost (`npm run bench:org`): on fresh stores, one service process, one organization, a platform
 * key with Service-Organization-Id and 1 client, `GET /api/v2/organizations/:id` over REST against `GetOrganization`
 * called directly over gRPC, each as a share of a raw node:http hello-world measured in the same run. Target (issue
 * 23): REST within 1.3x of gRPC (each request's time over REST at most 1.3 times its time over gRPC).
 *   QUICK_SECONDS=5 (each measured phase)   QUICK_CLIENTS=1
 */
const PHASE_MS = Number(process.env.QUICK_SECONDS ?? 5) * 1000;
const CLIENTS = Number(process.env.QUICK_CLIENTS ?? 1);
const log = (line: string) => console.log(`[org-get ${new Date().toISOString().slice(11, 19)}] ${line}`);

const tally = createResponseTally();
const raw = await measureRawBaseline({ clients: [CLIENTS], durationMs: PHASE_MS, tally, log });
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
      externalId: 'bench-org-get',
      name: 'Bench organization',
    }),
    'POST /api/v2/organizations',
  );
  const organizationId = (created.body as { id: string }).id;
  const platform = createBenchClient(target, { key, headers: { 'service-organization-id': organizationId }, tally });
  const ctx: MeasureContext = {
    tally,
    processes: { service: [service.pid], postgres: stores.postgresPid, redis: stores.redisPid },
    serviceUrl: service.url,
  };
  log(`GET /api/v2/organizations/:id over REST, ${CLIENTS} client(s), ${PHASE_MS / 1000} s`);
  const rest = await benchGet(
    {
      id: `org-get.rest.c${CLIENTS}`,
      label: `GET /api/v2/organizations/:id, REST, platform, ${CLIENTS} client(s)`,
      api: platform,
      path: `/api/v2/organizations/${organizationId}`,
      concurrency: CLIENTS,
      durationMs: PHASE_MS,
    },
    ctx,
  );
  log(`GetOrganization over gRPC, ${CLIENTS} client(s), ${PHASE_MS / 1000} s`);
  const grpc = await benchGrpcGetOrganization(
    {
      id: `org-get.grpc.c${CLIENTS}`,
      label: `GetOrganization, gRPC, platform, ${CLIENTS} client(s)`,
      target: service.grpcTarget,
      key,
      organizationId,
      concurrency: CLIENTS,
      durationMs: PHASE_MS,
    },
    ctx,
  );
  const rows: BenchRow[] = [measurementRow(raw, 'org-get', rest), measurementRow(raw, 'org-get', grpc)];
  console.log('');
  console.log(renderReport(rows));
  console.log('');
  console.log(targetLine(orgGetTarget(raw, rest, grpc)));
  await target.close();
} finally {
  await service?.process.stop().catch(() => undefined);
  await stores.stop();
}
