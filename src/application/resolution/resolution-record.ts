import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Provider } from '../../domain/provider.js';
import type { EligibilityRequest } from '../../domain/eligibility.js';
import { withRedis, type Redis } from '../../persistence/redis-client.js';
import type { OrgGraph } from './org-graph.js';
import { createWeightedCache } from './weighted-cache.js';

const gz = promisify(gzip);
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
export function createResolutionRecords(deps: { redis: Redis; maxSnapshotProviders?: number }) {
  const written = new Map<string, Promise<void>>();
  const refreshedAt = new Map<string, number>();
  // Snapshots read back for candidates are whole provider lists: bounded by providers held, like the graph cache.
  const snapshots = createWeightedCache<GraphSnapshot>({
    maxEntries: 20,
    maxWeight: deps.maxSnapshotProviders ?? 25_000,
    weightOf: (s) => s.providers.length,
  });
  return {
    async save(id: string, record: ResolutionRecord): Promise<void> {
      await withRedis(() => deps.redis.set(recordKey(id), JSON.stringify(record), { EX: RECORD_TTL_S }));
    },
    async load(id: string): Promise<ResolutionRecord | undefined> {
      const raw = await withRedis(() => deps.redis.get(recordKey(id)));
      return raw === null ? undefined : (JSON.parse(String(raw)) as ResolutionRecord);
    },
    /** Makes sure the snapshot of this graph version is stored (once per process and version). */
    ensureSnapshot(graph: OrgGraph): Promise<void> {
      const key = snapshotKey(graph.organizationId, graph.graphVersion);
      let p = written.get(key);
      if (!p) {
        p = (async () => {
          const offering: Record<string, string[]> = {};
          for (const [slug, byProvider] of graph.servicesBySlug) offering[slug] = [...byProvider.keys()];
          const body = await gz(
            Buffer.from(JSON.stringify({ providers: graph.providers, offering } satisfies GraphSnapshot)),
          );
          await withRedis(() => deps.redis.set(key, body.toString('base64'), { EX: SNAPSHOT_TTL_S }));
          snapshots.set(key, Promise.resolve({ providers: graph.providers, offering }));
        })();
        p.catch(() => written.delete(key));
        written.set(key, p);
        if (written.size > 500) written.delete(written.keys().next().value as string);
      } else if (Date.now() - (refreshedAt.get(key) ?? 0) > 60_000) {
        // Keep a snapshot in use alive as long as resolutions made on it can be read (refreshed once a minute at most).
        refreshedAt.set(key, Date.now());
        if (refreshedAt.size > 500) refreshedAt.delete(refreshedAt.keys().next().value as string);
        void deps.redis.expire(key, SNAPSHOT_TTL_S).catch(() => undefined);
      }
      return p;
    },
    /** Reads the snapshot of a graph version (cached in memory). */
    loadSnapshot(orgId: string, version: number): Promise<GraphSnapshot | undefined> {
      const key = snapshotKey(orgId, version);
      const cached = snapshots.get(key);
      if (cached) return cached.catch(() => undefined);
      const p = (async () => {
        const raw = await withRedis(() => deps.redis.get(key));
        if (raw === null) throw new Error('snapshot missing');
        return JSON.parse((await gunz(Buffer.from(String(raw), 'base64'))).toString('utf8')) as GraphSnapshot;
      })();
      snapshots.set(key, p);
      return p.catch(() => undefined);
    },
  };
}

/** The store created by createResolutionRecords. */
export type ResolutionRecords = ReturnType<typeof createResolutionRecords>;
