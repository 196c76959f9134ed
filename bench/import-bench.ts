import { performance } from 'node:perf_hooks';
import { expectStatus, type BenchClient } from './bench-client.js';
import type { GeneratedProvider } from './provider-mix.js';

/** What the import phase measured. */
export interface ImportResult {
  calls: number;
  rowsPerCall: number;
  /** Time to submit all calls (each answers 202 at once). */
  submitMs: number;
  /** From the first submission until every job read `completed`. */
  wallMs: number;
  created: number;
  invalid: number;
  failedJobs: number;
  /** externalId -> provider id, from the jobs' per-row outcomes. */
  providerIds: Map<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Imports the providers in calls of `rowsPerCall` (POST /api/v2/provider-imports with a platform key naming
 * the organization), then polls each job until it is completed; times the whole.
 */
export async function benchImport(platform: BenchClient, providers: readonly GeneratedProvider[], rowsPerCall: number): Promise<ImportResult> {
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < providers.length; i += rowsPerCall) {
    const chunk = providers.slice(i, i + rowsPerCall).map((p) => p.row);
    const r = expectStatus(await platform.post('/api/v2/provider-imports', { mode: 'upsert', providers: chunk }), 'provider import submission', [202]);
    ids.push(r.body.importId as string);
  }
  const submitMs = performance.now() - t0;
  const providerIds = new Map<string, string>();
  let created = 0;
  let invalid = 0;
  let failedJobs = 0;
  // Jobs run in submission order, so waiting for each in turn sees the last finish without polling all.
  for (const id of ids) {
    for (;;) {
      const r = expectStatus(await platform.get(`/api/v2/provider-imports/${id}`), 'provider import read', [200]);
      const job = r.body;
      if (job.status === 'completed' || job.status === 'failed') {
        if (job.status === 'failed') failedJobs++;
        created += job.summary?.created ?? 0;
        invalid += job.summary?.invalid ?? 0;
        for (const row of job.rows ?? []) if (row.providerId && row.externalId) providerIds.set(row.externalId, row.providerId);
        break;
      }
      await sleep(50);
    }
  }
  return { calls: ids.length, rowsPerCall, submitMs, wallMs: performance.now() - t0, created, invalid, failedJobs, providerIds };
}
