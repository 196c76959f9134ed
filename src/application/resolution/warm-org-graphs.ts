import type { Queryable } from '../../persistence/database.js';
import { listRecentlyResolvedLargeGraphs } from '../../persistence/graph-snapshot-repository.js';
import { GRAPH_COLUMNS_FORMAT } from './graph-columns.js';
import type { OrgGraph } from './org-graph.js';

/** How far back a resolution makes an organization's graph worth loading before the process serves. */
export const WARM_UP_RESOLVED_WITHIN_MS = 60 * 60 * 1000;
/** The most graphs one warm-up loads. */
const WARM_UP_MAX_GRAPHS = 16;

/** What a warm-up did. */
export interface WarmUpResult {
  /** The organizations whose graph it put in the cache, in the order loaded. */
  organizations: string[];
  /** Their graphs' estimated heap, in bytes (`approxBytes`). */
  bytes: number;
  /** Whether it stopped at its time budget with graphs left to load (the one under way goes on in the background). */
  outOfTime: boolean;
}

/**
 * Loads into the graph cache (`orgGraphs`, createOrgGraphCache), one after the other, the graphs a process about to
 * serve is likely to be asked for first: those of organizations resolved within the last hour that have a stored
 * snapshot (large graphs, GRAPH_SNAPSHOT_MIN_PROVIDERS), the most recently resolved first, each as the first
 * resolution would load it (the current version's snapshot, else the latest one and the changes since, else the rows)
 * but storing nothing (the snapshot builder stores a version not stored yet). Stops once the graphs loaded fill half
 * of `maxBytes` (the cache's budget: the rest is for what the process is then asked), or when `budgetMs` has passed: a
 * load still under way then goes on in the background, and a first call for that organization waits for it. A graph
 * that cannot be loaded is passed over (its first resolution tries again).
 */
export async function warmOrgGraphs(o: {
  db: Queryable;
  orgGraphs: (organizationId: string, knownVersion?: number, opts?: { store?: boolean }) => Promise<OrgGraph>;
  clock: () => Date;
  maxBytes: number;
  budgetMs: number;
}): Promise<WarmUpResult> {
  const result: WarmUpResult = { organizations: [], bytes: 0, outOfTime: false };
  if (o.budgetMs <= 0) return result;
  const deadline = Date.now() + o.budgetMs;
  const due = await listRecentlyResolvedLargeGraphs(o.db, {
    resolvedSince: new Date(o.clock().getTime() - WARM_UP_RESOLVED_WITHIN_MS),
    format: GRAPH_COLUMNS_FORMAT,
    limit: WARM_UP_MAX_GRAPHS,
  });
  for (const organizationId of due) {
    if (result.bytes >= o.maxBytes / 2) break;
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'out of time'>((resolve) => {
      timer = setTimeout(() => resolve('out of time'), Math.max(0, deadline - Date.now()));
    });
    const loaded = o.orgGraphs(organizationId, undefined, { store: false }).catch(() => undefined);
    const g = await Promise.race([loaded, outOfTime]);
    clearTimeout(timer);
    if (g === 'out of time') {
      result.outOfTime = true;
      break;
    }
    if (g === undefined) continue;
    result.organizations.push(organizationId);
    result.bytes += g.approxBytes;
  }
  return result;
}
