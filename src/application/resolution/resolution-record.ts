import { constants as zlibConstants, createGzip, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Provider } from '../../domain/provider.js';
import type { EligibilityRequest } from '../../domain/eligibility.js';
import { withRedis, type Redis } from '../../persistence/redis-client.js';
import type { OrgGraph } from './org-graph.js';
import { createWeightedCache } from './weighted-cache.js';
import type { GraphParts } from './graph-columns.js';
import type { GraphSnapshots } from './graph-snapshots.js';

const gunz = promisify(gunzip);

/** What is kept of a resolution beside its actor: the answer, and what candidates are recomputed from. */
export interface ResolutionRecord {
  organizationId: string;
  platformId: string;
  response: Record<string, any>;
  /** The waitlist entry this resolution was made to offer a freed slot to (CONTRACT part 8), if any. */
  waitlistEntryId?: string;
  /** The options with their internal data for holds and confirmation. */
  options: {
    optionId: string;
    providerId: string;
    serviceId: string;
    start: string;
    end: string;
    timezone: string;
    claimStart: string;
    claimEnd: string;
  }[];
  candidates: {
    graphVersion: number;
    serviceSlug: string;
    constraints: EligibilityRequest;
    evaluatedAt: string;
    /** The request's local dates; a matching license is judged on them (absent in records made before it was kept). */
    dateRange?: { from: string; to: string } | undefined;
    /** Providers left with no slot by their matching license's end inside the range, with its last valid date. */
    licenseExpired?: { providerId: string; expiresAt: string }[] | undefined;
    /** Providers eligible on steps 1-12 without an offerable slot, with their availability state. */
    noAvailability: { providerId: string; status: string }[];
    /** Provider ids of the options, best first (each once). */
    rankedProviderIds: string[];
  };
}

/** An organization's graph as candidates need it: providers and who offers which session type. */
export interface GraphSnapshot {
  providers: Provider[];
  offering: Record<string, string[]>;
}

/**
 * A snapshot held in memory, with its estimated heap: read back from a store (held), or a loaded graph's (made from the
 * graph while the graph cache, or a resolution under way, still holds it; undefined once the graph is collected).
 */
interface HeldSnapshot {
  snapshot(): GraphSnapshot | undefined;
  approxBytes: number;
}

/**
 * The gzipped JSON of a snapshot, the same bytes as `JSON.stringify(snapshot)` gives, written to the compressor a
 * thousand providers at a time: a large organization's snapshot is never one string (nor one buffer) in memory, and
 * other requests run between the chunks. Fastest compression level: it is on a graph's first resolution's path.
 */
async function gzipSnapshot(snapshot: GraphSnapshot): Promise<Buffer> {
  const z = createGzip({ level: zlibConstants.Z_BEST_SPEED });
  const chunks: Buffer[] = [];
  z.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    z.once('end', resolve);
    z.once('error', reject);
  });
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (z.write(text)) resolve();
      else z.once('drain', resolve);
    });
  const { providers, offering } = snapshot;
  await write('{"providers":[');
  for (let i = 0; i < providers.length; i += 1000) {
    const part = providers.slice(i, i + 1000).map((p) => JSON.stringify(p));
    await write((i === 0 ? '' : ',') + part.join(','));
  }
  z.end(`],"offering":${JSON.stringify(offering)}}`);
  await ended;
  return Buffer.concat(chunks);
}

const RECORD_TTL_S = 24 * 3600;
const SNAPSHOT_TTL_S = 2 * 3600;

/** Key of a resolution's record, in the actor's hash slot. */
const recordKey = (id: string) => `actor:{resolution:${id}}:record`;
const snapshotKey = (orgId: string, version: number) => `graph:{${orgId}}:v${version}`;

/**
 * Resolution records and graph snapshots in Redis. A snapshot of the provider graph is written once per
 * graph version (gzipped) and shared by every resolution made on it, so a resolution over 10,000 providers
 * keeps only a few kilobytes of its own for the candidates endpoint.
 */
export function createResolutionRecords(deps: {
  redis: Redis;
  maxSnapshotBytes?: number;
  /** Graph snapshots stored in PostgreSQL: a version stored there is read from there, and not copied to Redis. */
  graphSnapshots?: GraphSnapshots;
}) {
  const written = new Map<string, Promise<void>>();
  const refreshedAt = new Map<string, number>();
  // Snapshots read back for candidates are whole provider lists: bounded by their estimated heap, like the graph
  // cache (those of a loaded graph share its providers: only their offering lists count).
  const snapshots = createWeightedCache<HeldSnapshot>({
    maxEntries: 20,
    maxWeight: deps.maxSnapshotBytes ?? 128 * 1024 * 1024,
    weightOf: (s) => s.approxBytes,
  });
  /** Reads the stored snapshot of a graph version into the cache (Redis, else PostgreSQL's graph snapshots). */
  const readStored = (orgId: string, version: number): Promise<GraphSnapshot | undefined> => {
    const key = snapshotKey(orgId, version);
    const p = (async (): Promise<HeldSnapshot> => {
      const raw = await withRedis(() => deps.redis.get(key));
      if (raw === null) {
        const stored = await deps.graphSnapshots?.read({ organizationId: orgId, graphVersion: version });
        if (!stored?.found) throw new Error('snapshot missing');
        return snapshotOfParts(stored.columns.parts());
      }
      const text = (await gunz(Buffer.from(String(raw), 'base64'))).toString('utf8');
      const snapshot = JSON.parse(text) as GraphSnapshot;
      // Parsed JSON holds about twice its text in heap (objects, unshared strings).
      return { snapshot: () => snapshot, approxBytes: 2 * text.length };
    })();
    snapshots.set(key, p);
    return p.then((h) => h.snapshot()).catch(() => undefined);
  };
  return {
    async save(id: string, record: ResolutionRecord): Promise<void> {
      await withRedis(() => deps.redis.set(recordKey(id), JSON.stringify(record), { EX: RECORD_TTL_S }));
    },
    async load(id: string): Promise<ResolutionRecord | undefined> {
      const raw = await withRedis(() => deps.redis.get(recordKey(id)));
      return raw === null ? undefined : (JSON.parse(String(raw)) as ResolutionRecord);
    },
    /**
     * Makes sure the snapshot of this graph version is stored (once per process and version): in PostgreSQL when the
     * graph cache stores it there (large graphs), else in Redis.
     */
    ensureSnapshot(graph: OrgGraph): Promise<void> {
      const key = snapshotKey(graph.organizationId, graph.graphVersion);
      let p = written.get(key);
      if (!p) {
        p = (async () => {
          if (!(await graph.snapshotStored)) {
            const body = await gzipSnapshot(snapshotOf(graph));
            await withRedis(() => deps.redis.set(key, body.toString('base64'), { EX: SNAPSHOT_TTL_S }));
          }
          // The graph only weakly: held here it would outlive its version in the graph cache (a 100,000-provider graph
          // is ~150 MB, and twenty versions were kept), and its snapshot is stored (PostgreSQL or Redis) to be read
          // back once the graph is collected. Built when candidates ask: a graph read from columns builds every
          // provider then, not on a resolution.
          snapshots.set(key, Promise.resolve(weaklyHeld(new WeakRef(graph), 16 * graph.providerCount)));
        })();
        p.catch(() => written.delete(key));
        written.set(key, p);
        if (written.size > 500) written.delete(written.keys().next().value as string);
      } else if (graph.source !== 'snapshot' && Date.now() - (refreshedAt.get(key) ?? 0) > 60_000) {
        // Keep a snapshot in use alive as long as resolutions made on it can be read (refreshed once a minute at most).
        refreshedAt.set(key, Date.now());
        if (refreshedAt.size > 500) refreshedAt.delete(refreshedAt.keys().next().value as string);
        void deps.redis.expire(key, SNAPSHOT_TTL_S).catch(() => undefined);
      }
      return p;
    },
    /** Reads the snapshot of a graph version (cached in memory). */
    loadSnapshot(orgId: string, version: number): Promise<GraphSnapshot | undefined> {
      const cached = snapshots.get(snapshotKey(orgId, version));
      if (!cached) return readStored(orgId, version);
      // A loaded graph's entry may have outlived its graph: then the stored snapshot is read.
      return cached
        .then((h) => h.snapshot())
        .catch(() => undefined)
        .then((snapshot) => snapshot ?? readStored(orgId, version));
    },
  };
}

/**
 * The snapshot of a graph held weakly. A function of its own: a closure made where `graph` is in scope would keep the
 * graph alive through its context.
 */
function weaklyHeld(graph: WeakRef<OrgGraph>, approxBytes: number): HeldSnapshot {
  return {
    snapshot: () => {
      const g = graph.deref();
      return g === undefined ? undefined : snapshotOf(g);
    },
    approxBytes,
  };
}

/** What candidates need of a loaded graph: its providers, and who offers each slug. */
function snapshotOf(graph: OrgGraph): GraphSnapshot {
  const offering: Record<string, string[]> = {};
  for (const [slug, byProvider] of graph.servicesBySlug) offering[slug] = [...byProvider.keys()];
  return { providers: graph.providers, offering };
}

/** What candidates need of a graph's records: providers, and who offers each slug (their first service, by id). */
function snapshotOfParts(parts: GraphParts): HeldSnapshot {
  const bySlug = new Map<string, Set<string>>();
  for (const svc of parts.services) {
    let set = bySlug.get(svc.slug);
    if (!set) bySlug.set(svc.slug, (set = new Set()));
    set.add(svc.providerId);
  }
  const offering: Record<string, string[]> = {};
  for (const [slug, set] of bySlug) offering[slug] = [...set];
  const snapshot = { providers: parts.providers, offering };
  // About the heap of a graph's providers (docs/configuration.md#memory).
  return { snapshot: () => snapshot, approxBytes: 1800 * parts.providers.length };
}

/** The store created by createResolutionRecords. */
export type ResolutionRecords = ReturnType<typeof createResolutionRecords>;
