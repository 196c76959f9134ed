import { constants as zlibConstants, gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Database } from '../../persistence/database.js';
import { runOutsideCallScope } from '../../persistence/call-scope.js';
import {
  latestGraphSnapshotVersion,
  readGraphSnapshot,
  writeGraphSnapshot,
} from '../../persistence/graph-snapshot-repository.js';
import {
  openGraphColumns,
  GRAPH_COLUMNS_FORMAT,
  type GraphColumnsKey,
  type GraphColumnsView,
} from './graph-columns.js';

const gz = promisify(gzip);
const gunz = promisify(gunzip);

/** Bytes of one stored part (compressed): well under PostgreSQL's and V8's single-value limits. */
const PART_BYTES = 8 * 1024 * 1024;
/** Statement timeout of a snapshot's write: megabytes, off the request path, may take longer than a request's bound. */
const WRITE_TIMEOUT_MS = 120_000;
/** Statement timeout of a snapshot's read (one statement for every part). */
const TRANSFER_TIMEOUT_MS = 60_000;
/** How long a snapshot of an older version is kept: resolutions made on it read it for their candidates. */
export const GRAPH_SNAPSHOT_KEEP_MS = 24 * 3600_000;

/**
 * Gunzips a whole gzip member into one buffer of its final size: its trailer gives the size (ISIZE, modulo 2^32), so
 * zlib writes a single chunk instead of chunks concatenated at the end (half the transient memory, no copy). A size
 * that does not fit (a corrupt trailer, columns of 4 GiB or more) only costs the chunked path.
 */
export async function gunzipWhole(body: Buffer): Promise<Buffer> {
  const size = body.length >= 18 ? body.readUInt32LE(body.length - 4) : 0;
  const chunkSize = Math.min(Math.max(size + 1, 64 * 1024), 1024 * 1024 * 1024);
  return gunz(body, { chunkSize });
}

/** What reading a stored snapshot gave: its columns (opened and checked), or why there were none to use. */
export type GraphSnapshotRead =
  | { found: true; columns: GraphColumnsView }
  | { found: false; reason: 'missing' | 'other_format' | 'unreadable'; detail?: string };

/**
 * The graph snapshots kept in PostgreSQL (graph_snapshots): an organization's graph at one version in its columnar
 * form (graph-columns.ts), gzipped (which also checks it: a damaged part fails its CRC), written once per version and
 * read back in one statement.
 */
export function createGraphSnapshots(deps: { db: Database; clock: () => Date }) {
  return {
    /** The latest version at or below `atMost` of which a snapshot is stored (maybe incomplete: read tells). */
    latestVersion: (organizationId: string, atMost: number): Promise<number | undefined> =>
      runOutsideCallScope(() => latestGraphSnapshotVersion(deps.db, organizationId, atMost)),
    /** Reads and opens the snapshot of `key`'s version; anything missing, of another format or damaged is not found. */
    async read(key: GraphColumnsKey): Promise<GraphSnapshotRead> {
      // Outside the call that asked: the load is shared by every caller waiting for the graph, and may outlast the first.
      const stored = await runOutsideCallScope(() =>
        readGraphSnapshot(deps.db, TRANSFER_TIMEOUT_MS, key.organizationId, key.graphVersion),
      );
      if (!stored) return { found: false, reason: 'missing' };
      if (stored.format !== GRAPH_COLUMNS_FORMAT) return { found: false, reason: 'other_format' };
      try {
        const body = stored.parts.length === 1 ? stored.parts[0]! : Buffer.concat(stored.parts);
        stored.parts.length = 0;
        return { found: true, columns: openGraphColumns(await gunzipWhole(body), key) };
      } catch (e) {
        return { found: false, reason: 'unreadable', detail: (e as Error).message };
      }
    },
    /**
     * Stores `columns` (of `key`'s version: readGraphColumns, encodeGraphColumns) as the version's snapshot under the
     * organization's build lease (writeGraphSnapshot): 'present' when it was stored already in this format, or by
     * another process while this one waited for the lease (then nothing is compressed here); drops old versions' ones.
     * `replace`: the one stored at this version was found unusable (damaged), write over it.
     */
    async write(
      key: GraphColumnsKey,
      columns: Buffer,
      opts: { replace?: boolean } = {},
    ): Promise<'written' | 'present'> {
      const now = deps.clock();
      return writeGraphSnapshot(deps.db, WRITE_TIMEOUT_MS, {
        organizationId: key.organizationId,
        graphVersion: key.graphVersion,
        format: GRAPH_COLUMNS_FORMAT,
        parts: async () => {
          const body = await gz(columns, { level: zlibConstants.Z_BEST_SPEED });
          const cut: Buffer[] = [];
          for (let i = 0; i < body.length; i += PART_BYTES) cut.push(body.subarray(i, i + PART_BYTES));
          return cut;
        },
        now,
        keepSince: new Date(now.getTime() - GRAPH_SNAPSHOT_KEEP_MS),
        replace: opts.replace === true,
      });
    },
  };
}

/** The store created by createGraphSnapshots. */
export type GraphSnapshots = ReturnType<typeof createGraphSnapshots>;
