import type { Database } from '../../persistence/database.js';
import { readGraphChanges, type ChangedRow, type GraphChangesRead } from '../../persistence/graph-change-repository.js';
import {
  CELL,
  GraphColumnsError,
  openGraphColumns,
  type GraphColumnsKey,
  type GraphColumnsView,
} from './graph-columns.js';
import type { GraphWriterTable } from './graph-columns-writer.js';
import { createGraphRowColumns } from './read-graph-columns.js';
import type { GraphSnapshots } from './graph-snapshots.js';

/** The changes of a graph between two versions, as readGraphChanges reads them. */
export type GraphChanges = Extract<GraphChangesRead, { status: 'changed' }>;

/**
 * The columns of `key`'s version made from the columns of an earlier version (`base`) and what changed between the two:
 * every record of the base whose id did not change copied as it is, each changed row written in its place in the
 * load's order (after the row PostgreSQL orders before it), the records of ids whose rows are gone left out. The
 * result is byte for byte the columns `readGraphColumns` reads at that version (the same values through the same
 * writer in the same order); throws GraphColumnsError when the changes do not fit the base (the caller reads the rows).
 * Awaits `pause` between runs of records: the copy leaves the event loop to the process's other work (a transaction
 * of another call must not sit idle past its bound while a large graph is copied).
 */
export async function applyGraphChanges(
  base: GraphColumnsView,
  changes: GraphChanges,
  key: GraphColumnsKey,
  pause: () => Promise<void> = yieldToLoop,
): Promise<Buffer> {
  const out = createGraphRowColumns(key.organizationId);
  const merge = async <R extends { id: string }>(
    table: GraphWriterTable,
    rows: ChangedRow<R>[],
    write: (row: R) => void,
  ) => {
    const changed = new Set(changes.ids[table]);
    // Each changed row by the id before it (one row follows any id): chains of new rows follow one base record.
    const next = new Map<string | null, R>();
    for (const x of rows) {
      if (next.has(x.after)) throw new GraphColumnsError(`changes: two ${table} rows after ${x.after}`);
      next.set(x.after, x.row);
    }
    let written = 0;
    const chain = (id: string | null) => {
      for (let row = next.get(id); row !== undefined; row = next.get(row.id)) {
        write(row);
        written++;
      }
    };
    chain(null);
    const ids = base.cells(table, 'id');
    const n = base.counts[table];
    for (let r = 0; r < n; r++) {
      // Other work of the process runs between runs of records (a copy of 100,000 takes a few hundred ms).
      if (r % PAUSE_EVERY === PAUSE_EVERY - 1) await pause();
      const id = ids.kinds[r] === CELL.STRING ? base.strOnce(ids.values[r]!) : (base.value(table, 'id', r) as string);
      if (changed.has(id)) continue;
      out.copy(table, base, r);
      chain(id);
    }
    if (written !== rows.length)
      throw new GraphColumnsError(`changes: ${rows.length - written} ${table} rows placed after no record`);
  };
  await merge('providers', changes.providers, out.provider);
  await merge('services', changes.services, out.service);
  await merge('schedules', changes.schedules, out.schedule);
  return out.finish(key);
}

/** Records copied between two pauses of applyGraphChanges. */
const PAUSE_EVERY = 8192;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Most writes (ids) a graph of `providers` providers is brought to a later version by: past it the changed rows are
 * more than a quarter of the whole, and reading every row costs about as much as re-reading those and copying the rest.
 */
export function maxChangedIds(providers: number): number {
  return Math.max(1000, Math.floor(providers / 4));
}

/** What bringing columns to the organization's current version gave. */
export type ColumnsFromChanges =
  /** The columns of `graphVersion` (the current version when read). */
  | { status: 'made'; graphVersion: number; view: GraphColumnsView }
  /** The base is of the current version. */
  | { status: 'current'; graphVersion: number }
  /** The record of changes cannot bring it (incomplete, or more than `maxIds` writes): read every row. */
  | { status: 'missing' | 'too_large'; graphVersion: number };

/** The columns a version is made from, in a holder that columnsFromChanges empties once they are copied. */
export interface GraphChangesBase {
  /** The base's columns; undefined once copied into the next version's (status 'made'). */
  columns: GraphColumnsView | undefined;
}

/**
 * Brings `base.columns` (the columns of `baseVersion`) to the organization's current version by the rows changed since
 * (readGraphChanges, applyGraphChanges). Once they are copied (status 'made') the holder lets them go, before the new
 * columns are opened: when it was their only holder (a snapshot read for this), the base's buffer can be collected
 * while the caller indexes the new version, instead of the two versions' columns being held side by side to the end.
 * Throws when the changes cannot be read or do not fit the base.
 */
export async function columnsFromChanges(
  db: Database,
  organizationId: string,
  base: GraphChangesBase,
  baseVersion: number,
  maxIds: number,
): Promise<ColumnsFromChanges> {
  if (base.columns === undefined) throw new GraphColumnsError('changes: the base was let go');
  const changes = await readGraphChanges(db, organizationId, baseVersion, maxIds);
  if (changes.status !== 'changed') return changes;
  const key = { organizationId, graphVersion: changes.graphVersion };
  // No local of this function holds the base: the holder is its only reference here.
  const columns = await applyGraphChanges(base.columns, changes, key);
  base.columns = undefined;
  return { status: 'made', graphVersion: changes.graphVersion, view: openGraphColumns(columns, key) };
}

/**
 * The stored snapshot of `key`'s version as the base of columnsFromChanges, in a holder of its own (nothing else
 * references the columns read), or undefined when it cannot be used.
 */
export async function readChangesBase(
  snapshots: Pick<GraphSnapshots, 'read'>,
  key: GraphColumnsKey,
): Promise<GraphChangesBase | undefined> {
  const read = await snapshots.read(key);
  return read.found ? { columns: read.columns } : undefined;
}

/**
 * The latest stored snapshot of an organization's graph below `version` (and above `above` when given: newer than a
 * graph the caller holds), as the base of columnsFromChanges with its version, or undefined when there is none that
 * can be used.
 */
export async function latestChangesBase(
  snapshots: Pick<GraphSnapshots, 'read' | 'latestVersion'>,
  organizationId: string,
  version: number,
  above?: number,
): Promise<{ baseVersion: number; base: GraphChangesBase } | undefined> {
  const latest = await snapshots.latestVersion(organizationId, version);
  if (latest === undefined || latest >= version || (above !== undefined && latest <= above)) return undefined;
  const base = await readChangesBase(snapshots, { organizationId, graphVersion: latest });
  return base === undefined ? undefined : { baseVersion: latest, base };
}
