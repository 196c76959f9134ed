import { performance } from 'node:perf_hooks';
import { createBenchClient, expectStatus, type HttpTarget } from './bench-client.js';
import { benchImport, type ImportResult } from './import-bench.js';
import { generateProviders } from './provider-mix.js';
import type { ResponseTally } from './response-tally.js';
import { createBenchOrganization } from './seed-organization.js';
import type { SeededRandom } from '../test/helpers/seeded-random.js';
import { seedBySql } from './sql-bulk-seed.js';

/** The large organization and how long loading it took. */
export interface LargeOrganization {
  organizationId: string;
  providerCount: number;
  serviceIds: string[];
  /** The first `apiProviders` providers, through the API's imports (platform path). */
  apiProviders: number;
  importResult: ImportResult;
  /** The other providers, and every provider's service and schedule but the first's, written by SQL. */
  sqlProviders: number;
  sqlMs: number;
}

/**
 * Builds a second organization of `providerCount` providers (the same mix as the main one): the first
 * `apiProviders` through the API's imports with the platform key (their job times show how an import's cost
 * grows with the organization), the first provider's service and schedule through the API, and the rest by SQL
 * (sql-bulk-seed.ts): each import job reads every provider of the organization, so importing 100,000 through
 * the API takes the best part of half an hour on two cores.
 */
export async function seedLargeOrganization(o: {
  target: HttpTarget;
  tally: ResponseTally;
  platformKey: string;
  databaseUrl: string;
  providerCount: number;
  apiProviders: number;
  rowsPerImport: number;
  nowMs: number;
  rnd: SeededRandom;
  log: (line: string) => void;
}): Promise<LargeOrganization> {
  const platform = createBenchClient(o.target, { key: o.platformKey, tally: o.tally });
  const { organizationId } = await createBenchOrganization(platform, 'Bench Large Network');
  const api = createBenchClient(o.target, {
    key: o.platformKey,
    headers: { 'service-organization-id': organizationId },
    tally: o.tally,
  });
  const generated = generateProviders(o.rnd, o.providerCount, o.nowMs);
  const viaApi = generated.slice(0, Math.min(o.apiProviders, generated.length));
  o.log(`large organization: importing ${viaApi.length} providers through the API in calls of ${o.rowsPerImport}...`);
  const importResult = await benchImport(api, viaApi, o.rowsPerImport, o.log);
  const missing = viaApi.filter((g) => !importResult.providerIds.has(g.externalId)).length;
  if (missing > 0)
    throw new Error(
      `large import: ${missing} providers have no id after the import (invalid: ${importResult.invalid})`,
    );
  const first = viaApi[0]!;
  const firstId = importResult.providerIds.get(first.externalId)!;
  const svc = expectStatus(
    await api.post('/api/v2/services', {
      providerId: firstId,
      title: 'Intake Session',
      duration: 50,
      modality: first.serviceModality,
    }),
    'create template service',
  );
  const cal = expectStatus(
    await api.post('/api/v2/calendar-connections', {
      providerId: firstId,
      title: 'Office hours',
      timezone: first.timezone,
      days: first.days,
    }),
    'create template schedule',
  );
  const rest = generated.slice(viaApi.length);
  o.log(
    `large organization: imported in ${(importResult.wallMs / 1000).toFixed(1)} s; ${rest.length} more providers and ${generated.length - 1} services and schedules by SQL...`,
  );
  const t0 = performance.now();
  const written = await seedBySql({
    databaseUrl: o.databaseUrl,
    organizationId,
    newProviders: rest,
    storedProviders: viaApi
      .slice(1)
      .map((g) => ({ generated: g, providerId: importResult.providerIds.get(g.externalId)! })),
    templateServiceId: svc.body.id,
    templateScheduleId: cal.body.id,
  });
  return {
    organizationId,
    providerCount: generated.length,
    serviceIds: [svc.body.id as string, ...[...written.values()].map((w) => w.serviceId)],
    apiProviders: viaApi.length,
    importResult,
    sqlProviders: rest.length,
    sqlMs: performance.now() - t0,
  };
}
