import { benchMetrics } from './bench-service.js';

/** Refusals counted by a service's admission, by `gate/reason` (`rest/overloaded`, `pg_pool/pool_full`). */
export type RefusalCounts = Record<string, number>;

/** The service's scheduling_admission_shed_total by gate and reason, from its full /metrics (the bench's token). */
export async function readRefusalCounts(url: string): Promise<RefusalCounts> {
  const text = await benchMetrics(url);
  const out: RefusalCounts = {};
  for (const m of text.matchAll(/^scheduling_admission_shed_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    out[`${labels.gate ?? '?'}/${labels.reason ?? '?'}`] = Number(m[2]);
  }
  return out;
}

/** What was refused between two readings (only the counts that grew). */
export function refusalsBetween(before: RefusalCounts, after: RefusalCounts): RefusalCounts {
  return Object.fromEntries(
    Object.entries(after)
      .map(([k, n]) => [k, n - (before[k] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}
