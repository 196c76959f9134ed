import type { Database } from '../persistence/database.js';
import {
  hasAtLeastProviders,
  listGraphsNeverStored,
  listGraphsNeverStoredAfter,
  listGraphsWithoutSnapshot,
  withGraphBuildLease,
} from '../persistence/graph-snapshot-repository.js';
import { createGraphSnapshots, GRAPH_SNAPSHOT_KEEP_MS } from '../application/resolution/graph-snapshots.js';
import { pruneGraphChanges } from '../persistence/graph-change-repository.js';
import { createOrgGraphCache, DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS } from '../application/resolution/org-graph.js';
import { GRAPH_COLUMNS_FORMAT } from '../application/resolution/graph-columns.js';
import { createPollingWorker } from './polling-worker.js';
import type { Worker } from './worker.js';

/** Organizations looked at per step. */
const BATCH = 50;

/**
 * How long after its last move a graph that never had a snapshot is looked at for its first: past an import job's
 * transaction (its version's move is dated at the transaction's start) and a restart after it.
 */
const FIRST_SNAPSHOT_WINDOW_MS = 10 * 60_000;

/**
 * Longest a due graph waits for its version to settle: one still moving then is built all the same (at the version its
 * read sees), so a steady flow of edits leaves its latest snapshot at most that far behind.
 */
export const MOVING_BUILD_MS = 30_000;

/**
 * Ids written since its latest snapshot (providers, services, calendar connections) past which a due graph that keeps
 * moving is built after MOVING_BUILD_SOON_MS instead of MOVING_BUILD_MS: an import then keeps few changes between the
 * latest snapshot and the current version (~10,000 ids at an import's pace), so a process that has to make the
 * current one (a new one, or one holding an older graph) applies them instead of reading every row (maxChangedIds: a
 * quarter of the providers, 25,000 at 100,000). 1,000 is the floor of maxChangedIds, ~330 providers with their service
 * and schedule.
 */
export const MOVING_BUILD_IDS = 1_000;

/**
 * How long a moving graph with MOVING_BUILD_IDS written waits between builds: each build of a 100,000-provider graph
 * costs its process ~1.5-2 s of CPU, which an import running beside it shares (built at every 5 s step, a 10,000-provider
 * import through the API took ~35% longer).
 */
export const MOVING_BUILD_SOON_MS = 10_000;

/** Longest a build holds its lease (a million providers' rows take a minute or two to load). */
const BUILD_BOUND_MS = 300_000;

/**
 * One step of the graph snapshot builder: among the organizations whose graph has had a stored snapshot but has none
 * of its current version, and those of `minProviders` or more providers that never had one and moved within the last
 * ten minutes (a bulk import, a seeding) or are the next one of the step's walk over every graph never stored (from
 * its first run on, a page a step: graphs that were there before snapshots, or written while no builder ran), builds
 * the snapshot of one: a first one at once (later ones are made from it and the changes); a later one once its version
 * has not moved since the previous step (an edit in progress moves it: its graph is built once it has settled, not
 * after each change), or, one that keeps moving, once it has been due for MOVING_BUILD_SOON_MS with `movingBuildIds`
 * ids written since its latest snapshot, else for MOVING_BUILD_MS. One process at a time builds an organization's
 * snapshot, under a lease the others pass by. Returns the organization built, if any. The state (versions seen at the
 * previous step, since when each has been due, the walk) is the step's own.
 *
 * A snapshot is made by `loadGraph` when given (the process's graph cache: it makes the current version from the graph
 * it holds, the latest stored snapshot or the rows, and stores its snapshot; the load is shared with a resolution
 * asking meanwhile, and leaves the graph warm there, brought forward from it at the next build), else through a graph
 * cache of its own, dropped after the build. Its `walking()` says whether the walk has graphs left to look at.
 */
export function createGraphSnapshotBuildStep(deps: {
  db: Database;
  clock: () => Date;
  /** Default DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS (GRAPH_SNAPSHOT_MIN_PROVIDERS). */
  minProviders?: number;
  /** Loads the organization's current graph and answers whether its snapshot was stored. */
  loadGraph?: (organizationId: string) => Promise<boolean>;
  /** Default MOVING_BUILD_IDS. */
  movingBuildIds?: number;
}) {
  const snapshots = createGraphSnapshots(deps);
  /** Graphs due at the previous step: the version seen, and since when each has been due without being built. */
  let seen = new Map<string, { graphVersion: number; dueSince: number }>();
  const minProviders = deps.minProviders ?? DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS;
  /** Graphs found under minProviders, at the version they were counted at (counted again once they move). */
  let small = new Map<string, number>();
  /**
   * The walk over every graph never stored, from the step's first run on (graphs that moved long before it: data that
   * was there before snapshots, or written straight into the tables while no builder ran), once per process: the last
   * organization looked at, and the large one found and not yet tried (it stays due until a build of it is tried).
   * Undefined once it has been over them all.
   */
  let walk:
    | { after: string | undefined; found: { organizationId: string; graphVersion: number } | undefined }
    | undefined = { after: undefined, found: undefined };
  /** Whether a graph has minProviders or more providers (counted no further); one under is remembered in `small`. */
  const isLarge = async (x: { organizationId: string; graphVersion: number }): Promise<boolean> => {
    if (small.get(x.organizationId) === x.graphVersion) return false;
    if (await hasAtLeastProviders(deps.db, x.organizationId, minProviders)) return true;
    small.set(x.organizationId, x.graphVersion);
    return false;
  };
  /** The walk's large graph found and not yet tried, else the next one of a page (counted in order up to it). */
  const walkStep = async () => {
    if (walk === undefined) return [];
    if (walk.found) return [walk.found];
    const page = await listGraphsNeverStoredAfter(deps.db, { after: walk.after, limit: BATCH });
    for (const x of page) {
      walk.after = x.organizationId;
      if (await isLarge(x)) return [(walk.found = x)];
    }
    if (page.length < BATCH) walk = undefined;
    return [];
  };
  /**
   * Graphs that never had a snapshot, of minProviders or more providers: those that moved within the window, and the
   * next one of the walk.
   */
  const largeNeverStored = async () => {
    const moved = await listGraphsNeverStored(deps.db, {
      movedSince: new Date(deps.clock().getTime() - FIRST_SNAPSHOT_WINDOW_MS),
      except: small,
      limit: BATCH,
    });
    const large: typeof moved = [];
    for (const x of moved) if (await isLarge(x)) large.push(x);
    for (const x of await walkStep()) if (!large.some((y) => y.organizationId === x.organizationId)) large.push(x);
    // Bounded: past 500 the earliest found go (one let go is only counted again, once).
    if (small.size > 10 * BATCH) small = new Map([...small].slice(-5 * BATCH));
    return large;
  };
  /**
   * Builds and stores the snapshot of the organization's current version through a graph cache of its own, dropped
   * after (so a process without `loadGraph` holds no graph): from the latest stored snapshot and the changes since,
   * else from the rows, at any size. False when it was not stored.
   */
  const build = async (organizationId: string): Promise<boolean> =>
    (await createOrgGraphCache({ db: deps.db, clock: deps.clock, snapshots, snapshotMinProviders: 0 })(organizationId))
      .snapshotStored;
  /**
   * Builds under the organization's build lease: by `loadGraph` (else, or when the load did not store it, say under
   * the cache's minimum, by `build`); false, nothing read, while another process holds the lease (its builder is
   * reading the same rows).
   */
  const buildLeased = async (organizationId: string): Promise<boolean> =>
    (await withGraphBuildLease(
      deps.db,
      organizationId,
      BUILD_BOUND_MS,
      async () =>
        (deps.loadGraph !== undefined && (await deps.loadGraph(organizationId).catch(() => false))) ||
        build(organizationId),
    )) === true;
  const movingBuildIds = deps.movingBuildIds ?? MOVING_BUILD_IDS;
  const buildStep = async (): Promise<string | undefined> => {
    // The record of graph changes of every organization (those without snapshots too) is kept as long as snapshots.
    await pruneGraphChanges(deps.db, new Date(deps.clock().getTime() - GRAPH_SNAPSHOT_KEEP_MS));
    const due = [
      ...(await listGraphsWithoutSnapshot(deps.db, BATCH, GRAPH_COLUMNS_FORMAT)).map((x) => ({ ...x, first: false })),
      ...(await largeNeverStored()).map((x) => ({ ...x, changedIds: 0, first: true })),
    ];
    const now = deps.clock().getTime();
    const next = new Map<string, { graphVersion: number; dueSince: number }>();
    let built: string | undefined;
    for (const { organizationId, graphVersion, changedIds, first } of due) {
      const before = seen.get(organizationId);
      const dueSince = before?.dueSince ?? now;
      const dueFor = now - dueSince;
      const ready =
        first ||
        before?.graphVersion === graphVersion ||
        (changedIds >= movingBuildIds && dueFor >= MOVING_BUILD_SOON_MS) ||
        dueFor >= MOVING_BUILD_MS;
      const tried = built === undefined && ready;
      if (tried && walk?.found?.organizationId === organizationId) walk.found = undefined;
      if (tried && (await buildLeased(organizationId))) built = organizationId;
      else next.set(organizationId, { graphVersion, dueSince });
    }
    seen = next;
    return built;
  };
  /** Whether the walk over the graphs never stored has some left to look at (steps that build nothing go on with it). */
  return Object.assign(buildStep, { walking: () => walk !== undefined });
}

/**
 * Keeps large organizations' graph snapshots current (every `pollMs`, default 5 s): after their graph changes and
 * settles (or keeps moving, see createGraphSnapshotBuildStep), the snapshot of the new version is built here, so that
 * the first resolution on it in any process reads the snapshot, or a recent one and few changes, instead of every row;
 * a large graph that never had one (a bulk import; or one that last moved long ago, found by the walk when the process
 * starts) gets its first here too, so that the first resolution after the import need not read every row (else from
 * the process that first loads it from its rows, org-graph.ts). One process at a time builds an organization's
 * snapshot, under a lease the others pass by.
 */
export function createGraphSnapshotBuilder(
  deps: Parameters<typeof createGraphSnapshotBuildStep>[0] & { pollMs?: number },
): Worker {
  const step = createGraphSnapshotBuildStep(deps);
  return createPollingWorker({
    pollMs: deps.pollMs ?? 5000,
    step: async () => (await step()) !== undefined,
  });
}
