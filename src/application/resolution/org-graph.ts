import type { Database } from '../../persistence/database.js';
import { NULLABLE_PROVIDER_DOC_KEYS, type ProviderView } from '../../persistence/provider-repository.js';
import { readGraphVersion } from '../../persistence/organization-repository.js';
import { runOutsideCallScope } from '../../persistence/call-scope.js';
import type { CalendarConnection, Provider, ProviderService } from '../../domain/provider.js';
import { createWeightedCache, type WeightLimit } from './weighted-cache.js';
import { openGraphColumns, type GraphColumnsView } from './graph-columns.js';
import type { GraphSnapshots } from './graph-snapshots.js';
import type { GraphOrigin, OrgGraph } from './org-graph-shape.js';
import { assembleColumnGraph } from './column-org-graph.js';
import { readGraphColumns } from './read-graph-columns.js';
import { columnsFromChanges, latestChangesBase, maxChangedIds, type GraphChangesBase } from './apply-graph-changes.js';

export type { GraphOrigin, OrgGraph } from './org-graph-shape.js';

/** Maps the API view of a provider to the domain type (nulls become absent). */
export function toDomainProvider(v: ProviderView): Provider {
  const p: Record<string, unknown> = { ...v };
  for (const k of NULLABLE_PROVIDER_DOC_KEYS) p[k] ??= undefined;
  return p as {
    [K in keyof ProviderView]: null extends ProviderView[K]
      ? Exclude<ProviderView[K], null> | undefined
      : ProviderView[K];
  };
}

/** Maps a services row to the domain type. */
export function toDomainService(row: Record<string, any>): ProviderService {
  const d = row.doc ?? {};
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    slug: row.slug,
    title: d.title,
    duration: Number(d.duration),
    price: d.price ?? undefined,
    currency: d.currency ?? undefined,
    modality: d.modality ?? undefined,
    slotIntervalMinutes: d.slotIntervalMinutes ?? undefined,
    minimumNoticeMinutes: d.minimumNoticeMinutes ?? undefined,
    bufferBeforeMinutes: d.bufferBeforeMinutes ?? undefined,
    bufferAfterMinutes: d.bufferAfterMinutes ?? undefined,
  };
}

/** Maps a calendar_connections row to the domain type. */
export function toDomainSchedule(row: Record<string, any>): CalendarConnection {
  const d = row.doc ?? {};
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    title: d.title ?? undefined,
    timezone: d.timezone,
    days: d.days ?? {},
    overrides: d.overrides ?? [],
    externalCalendar: d.externalCalendar ?? undefined,
    status: 'active',
  };
}

/** The graph cache's default budget of estimated heap (GRAPH_CACHE_MAX_MB=256). */
export const DEFAULT_GRAPH_CACHE_BYTES = 256 * 1024 * 1024;

/** Graphs of at least this many providers get a stored snapshot (GRAPH_SNAPSHOT_MIN_PROVIDERS). */
export const DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS = 2000;

/**
 * Keeps each organization's graph in memory, keyed by its provider graph version: a read costs one small query for the
 * current version (none when the caller read it already); a changed version loads the graph again (concurrent loads
 * shared): from the graph held at an earlier version and the rows changed since (readGraphChanges, applyGraphChanges:
 * the same columns as reading every row) when the record of changes allows it. The cache is bounded by organizations
 * and by the graphs' estimated heap (`approxBytes`; GRAPH_CACHE_MAX_MB): the least recently used graphs go first, never
 * the one just read.
 *
 * With `snapshots`, a version is loaded from its stored snapshot when there is one (one statement, no row parsed), else
 * from the latest stored snapshot before it and the rows changed since, and from every row otherwise (no snapshot yet,
 * of another format, damaged; changes not recorded since, or more than `maxChangedIds`); a graph of
 * `snapshotMinProviders` or more loaded from its rows or its changes then has its snapshot written after the load, off
 * the request that waits for it (labelled with the version its rows were read at: a later one is the base of the next).
 */
export function createOrgGraphCache(deps: {
  db: Database;
  clock: () => Date;
  maxOrganizations?: number;
  /** Estimated heap the cached graphs may hold in total (bytes); default DEFAULT_GRAPH_CACHE_BYTES. */
  maxBytes?: number;
  /** Also bounds the providers held in total, when given (tests; the byte bound is the one that matters). */
  maxProviders?: number;
  snapshots?: GraphSnapshots;
  /** Default DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS. */
  snapshotMinProviders?: number;
  /** Most writes a graph of n providers is brought to a later version by (default maxChangedIds). */
  maxChangedIds?: (providers: number) => number;
  /** Told when a stored snapshot could not be used or written (the graph is served from its rows all the same). */
  onSnapshotProblem?: (organizationId: string, graphVersion: number, problem: string) => void;
}) {
  const limits: WeightLimit<OrgGraph>[] = [
    { max: deps.maxBytes ?? DEFAULT_GRAPH_CACHE_BYTES, weightOf: (g) => g.approxBytes },
  ];
  if (deps.maxProviders !== undefined) limits.push({ max: deps.maxProviders, weightOf: (g) => g.providerCount });
  const cache = createWeightedCache<OrgGraph>({ maxEntries: deps.maxOrganizations ?? 200, limits });
  const minProviders = deps.snapshotMinProviders ?? DEFAULT_GRAPH_SNAPSHOT_MIN_PROVIDERS;
  const problem = (organizationId: string, version: number, what: string) =>
    deps.onSnapshotProblem?.(organizationId, version, what);
  /** Writes a version's snapshot once the current request is answered; false when it was not written. */
  // Outside the call that loaded the graph: the write outlives its answer, and must not be cut off by its deadline.
  const storeLater = (
    snapshots: GraphSnapshots,
    organizationId: string,
    version: number,
    columns: Buffer,
    replace: boolean,
  ) =>
    runOutsideCallScope(() =>
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(async () => {
          await snapshots.write({ organizationId, graphVersion: version }, columns, { replace });
          return true;
        })
        .catch((e: unknown) => {
          problem(organizationId, version, `not written: ${(e as Error).message}`);
          return false;
        }),
    );
  /**
   * The graph brought from the columns of an earlier version (`baseVersion`) to the current one by what changed since
   * (readGraphChanges: the changed rows only); undefined when the change record cannot do it (incomplete, more than
   * maxChangedIds writes, not fitting the base), and the graph is read another way.
   */
  const fromChanges = async (
    organizationId: string,
    baseVersion: number,
    base: GraphChangesBase,
    baseStored: Promise<boolean>,
    atLeast: number,
    now: number,
    store: boolean,
  ): Promise<OrgGraph | undefined> => {
    const made = await columnsFromChanges(
      deps.db,
      organizationId,
      base,
      baseVersion,
      (deps.maxChangedIds ?? maxChangedIds)(base.columns!.counts.providers),
    ).catch((e: unknown) => {
      problem(organizationId, baseVersion, `changes not applied: ${(e as Error).message}`);
      return undefined;
    });
    // Never a graph older than the version asked for (a version read before this one is; it never moves back).
    if (made === undefined || made.graphVersion < atLeast) return undefined;
    if (made.status === 'current')
      return assembleColumnGraph(organizationId, baseVersion, base.columns!, now, {
        source: 'changes',
        snapshotStored: baseStored,
      });
    if (made.status !== 'made') return undefined;
    return assembleColumnGraph(organizationId, made.graphVersion, made.view, now, {
      source: 'changes',
      snapshotStored: storeIfLarge(organizationId, made.graphVersion, made.view, store),
    });
  };
  /**
   * Stores a version's snapshot after the answer when the graph is large enough to have one and the load may store
   * (`store`: not a warm-up), else false; `replace`: over the one stored at that version, found unusable.
   */
  const storeIfLarge = (
    organizationId: string,
    version: number,
    view: GraphColumnsView,
    store: boolean,
    replace = false,
  ): Promise<boolean> =>
    store && deps.snapshots && view.counts.providers >= minProviders
      ? storeLater(deps.snapshots, organizationId, version, view.buffer(), replace)
      : Promise.resolve(false);
  /** Loads a version (see createOrgGraphCache); `store`: false when nothing it makes is to be stored (a warm-up). */
  const load = async (organizationId: string, version: number, store: boolean, base?: OrgGraph): Promise<OrgGraph> => {
    const now = deps.clock().getTime();
    // From the graph this process held at an earlier version: only the rows changed since are read.
    const heldVersion = base?.columns !== undefined ? base.graphVersion : undefined;
    if (base?.columns) {
      const { graphVersion: baseVersion, snapshotStored: baseStored } = base;
      const lent: GraphChangesBase = { columns: base.columns };
      // The old graph (its indexes) is no longer in the cache: past this line only callers still reading it hold it,
      // and its columns only the holder, which lets them go once copied (columnsFromChanges). Not held here to the end
      // of the making, both versions' columns and indexes are not side by side at the peak.
      base = undefined;
      const g = await fromChanges(organizationId, baseVersion, lent, baseStored, version, now, store);
      if (g) return g;
    }
    const snapshots = deps.snapshots;
    /** The snapshot stored at `version` was found and could not be used (damaged): the one written replaces it. */
    let unusable = false;
    if (snapshots) {
      const read = await snapshots.read({ organizationId, graphVersion: version }).catch((e: unknown) => ({
        found: false as const,
        reason: 'unreadable' as const,
        detail: (e as Error).message,
      }));
      if (read.found) {
        try {
          return assembleColumnGraph(organizationId, version, read.columns, now, {
            source: 'snapshot',
            snapshotStored: Promise.resolve(true),
          });
        } catch (e) {
          unusable = true;
          problem(organizationId, version, `unreadable ${(e as Error).message}`);
        }
      } else if (read.reason !== 'missing') {
        unusable = true;
        problem(organizationId, version, `${read.reason} ${read.detail ?? ''}`.trim());
      } else {
        // None of this version (the graph changed since its last one was stored): the latest one and what changed;
        // one newer than the graph held here when that one could not be brought forward (too many changes since).
        const g = await fromLatestSnapshot(snapshots, organizationId, version, now, store, heldVersion).catch(
          (e: unknown) => {
            problem(organizationId, version, `earlier snapshot unusable: ${(e as Error).message}`);
            return undefined;
          },
        );
        if (g) return g;
      }
    }
    // Straight into columns (no object per record); the graph reads them in place, and its snapshot is their gzip. Of
    // the version the rows are of: later than `version` when the graph moved since it was read.
    const { graphVersion, columns } = await readGraphColumns(deps.db, organizationId);
    const view = openGraphColumns(columns, { organizationId, graphVersion });
    return assembleColumnGraph(organizationId, graphVersion, view, now, {
      source: 'rows',
      snapshotStored: storeIfLarge(organizationId, graphVersion, view, store, unusable && graphVersion === version),
    });
  };
  /**
   * The graph from the latest stored snapshot below `version` (above `above` when given) and the changes since it, or
   * undefined.
   */
  const fromLatestSnapshot = async (
    snapshots: GraphSnapshots,
    organizationId: string,
    version: number,
    now: number,
    store: boolean,
    above?: number,
  ): Promise<OrgGraph | undefined> => {
    // Held by nothing but the holder: let go once copied, before the new version is indexed (columnsFromChanges).
    const latest = await latestChangesBase(snapshots, organizationId, version, above);
    if (latest === undefined) return undefined;
    return fromChanges(organizationId, latest.baseVersion, latest.base, Promise.resolve(true), version, now, store);
  };
  /**
   * The graph of an organization at its current version (`knownVersion` when the caller read it). `store: false`: a
   * load this call starts writes no snapshot (a warm-up; a resolution that joins the load shares that).
   */
  return async function orgGraph(
    organizationId: string,
    knownVersion?: number,
    opts: { store?: boolean } = {},
  ): Promise<OrgGraph> {
    let version = knownVersion;
    if (version === undefined) {
      version = await readGraphVersion(deps.db, organizationId);
    }
    let cached = cache.get(organizationId);
    let base: OrgGraph | undefined;
    while (cached) {
      const g = await cached.catch(() => undefined);
      if (g && g.graphVersion >= version) return g;
      if (g && (base === undefined || g.graphVersion > base.graphVersion)) base = g;
      // Another caller may have started the newer load while this one waited: share it.
      const latest = cache.get(organizationId);
      cached = latest !== cached ? latest : undefined;
    }
    // Outside the call that starts it: the load is shared by every caller of the version and outlives a caller that
    // stops waiting (its deadline, 503); under that call's deadline a load longer than it would fail and restart at
    // every retry, never finishing. Its statements stay bounded by statement_timeout.
    const loading = runOutsideCallScope(() => load(organizationId, version, opts.store ?? true, base));
    cache.set(organizationId, loading);
    return loading;
  };
}

/** The function created by createOrgGraphCache. */
export type OrgGraphCache = ReturnType<typeof createOrgGraphCache>;
