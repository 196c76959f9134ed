import { performance } from 'node:perf_hooks';
import { expectStatus, type BenchClient } from './bench-client.js';
import { obeyRetryAfter } from './obey-retry-after.js';
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
  /**
   * Each job's time (ms) from the previous job's completion (the first: from its submission) to its own, by the
   * service's clock: jobs run one after the other, so this is what each cost as the organization grew.
   */
  jobMs: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Imports the providers in calls of `rowsPerCall` (POST /api/v2/provider-imports with a platform key naming
 * the organization), then polls each job until it is completed; times the whole. A 503 is waited out (Retry-After)
 * and sent again. `log` hears progress.
 */
export async function benchImport(
  platform: BenchClient,
  providers: readonly GeneratedProvider[],
  rowsPerCall: number,
  log?: (line: string) => void,
): Promise<ImportResult> {
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < providers.length; i += rowsPerCall) {
    const chunk = providers.slice(i, i + rowsPerCall).map((p) => p.row);
    const r = expectStatus(
      (await obeyRetryAfter(() => platform.post('/api/v2/provider-imports', { mode: 'upsert', providers: chunk }), 6))
        .response,
      'provider import submission',
      [202],
    );
    ids.push(r.body.importId as string);
  }
  const submitMs = performance.now() - t0;
  const providerIds = new Map<string, string>();
  let created = 0;
  let invalid = 0;
  let failedJobs = 0;
  const jobMs: number[] = [];
  let previous: number | undefined;
  // Jobs run in submission order, so waiting for each in turn sees the last finish without polling all.
  const every = Math.max(1, Math.ceil(ids.length / 10));
  for (const [n, id] of ids.entries()) {
    if (log && n > 0 && n % every === 0)
      log(`  ${n}/${ids.length} import jobs completed (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    for (;;) {
      const read = await obeyRetryAfter(() => platform.get(`/api/v2/provider-imports/${id}`), 6);
      const r = expectStatus(read.response, 'provider import read', [200]);
      const job = r.body;
      if (job.status === 'completed' || job.status === 'failed') {
        if (job.status === 'failed') failedJobs++;
        const done = Date.parse(job.completedAt ?? '');
        jobMs.push(done - (previous ?? Date.parse(job.createdAt)));
        previous = done;
        created += job.summary?.created ?? 0;
        invalid += job.summary?.invalid ?? 0;
        for (const row of job.rows ?? [])
          if (row.providerId && row.externalId) providerIds.set(row.externalId, row.providerId);
        break;
      }
      await sleep(50);
    }
  }
  return {
    calls: ids.length,
    rowsPerCall,
    submitMs,
    wallMs: performance.now() - t0,
    created,
    invalid,
    failedJobs,
    providerIds,
    jobMs,
  };
}
