import { readOneSnapshot, type Database, type Queryable } from './database.js';
import {
  PROVIDER_JSON,
  SCHEDULE_COLUMNS,
  SERVICE_JSON,
  type ProviderGraphRow,
  type ScheduleGraphRow,
  type ServiceGraphRow,
} from './organization-graph-rows.js';
import { LIVE_SERVICE_SQL } from './service-repository.js';

/** The record kinds of the graph a change names (graph_changes.kind). */
export type GraphChangeKind = 'providers' | 'services' | 'schedules';

/**
 * A changed row as it is now, and the id of the row just before it in the order the whole graph is read in (providers
 * and services by id, schedules by id descending; null: the first), as PostgreSQL orders them (the database's
 * collation, not JavaScript's).
 */
export interface ChangedRow<R> {
  row: R;
  after: string | null;
}

/** What changed in an organization's graph between two versions, read in one snapshot of the database. */
export type GraphChangesRead =
  | { status: 'current'; graphVersion: number }
  | {
      status: 'changed';
      /** The version the rows are of (the organization's current one when read). */
      graphVersion: number;
      /** Every id written since the base version, by kind: a base row of one of these is replaced by its row below. */
      ids: Record<GraphChangeKind, string[]>;
      /** The rows of those ids as they are now (a deleted provider, removed service or deleted schedule has none). */
      providers: ChangedRow<ProviderGraphRow>[];
      services: ChangedRow<ServiceGraphRow>[];
      schedules: ChangedRow<ScheduleGraphRow>[];
    }
  /** The change record between the versions is incomplete (pruned, older than it), or larger than allowed. */
  | { status: 'missing' | 'too_large'; graphVersion: number };

// A table's rows by id, each with the id before it in the whole load's order (one index probe each): the load's
// queries (organization-graph-rows.ts) for the given ids.
const CHANGED_ROW_QUERIES: Record<GraphChangeKind, string> = {
  providers: `SELECT ${PROVIDER_JSON} AS row,
      (SELECT p2.id FROM providers p2 WHERE p2.organization_id = $1 AND p2.id < p.id ORDER BY p2.id DESC LIMIT 1) AS after
    FROM providers p WHERE organization_id = $1 AND id = ANY($2::text[])`,
  services: `SELECT ${SERVICE_JSON} AS row,
      (SELECT s2.id FROM services s2 WHERE s2.organization_id = $1 AND s2.id < s.id AND ${LIVE_SERVICE_SQL.replace(/\bdoc\b/g, 's2.doc')}
        ORDER BY s2.id DESC LIMIT 1) AS after
    FROM services s WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL} AND id = ANY($2::text[])`,
  schedules: `SELECT ${SCHEDULE_COLUMNS},
      (SELECT c2.id FROM calendar_connections c2 WHERE c2.organization_id = $1 AND c2.id > c.id ORDER BY c2.id LIMIT 1) AS after
    FROM calendar_connections c WHERE organization_id = $1 AND id = ANY($2::text[])`,
};

/**
 * Reads what changed in an organization's graph since `sinceVersion`, in one read-only snapshot: the current version,
 * the moves of graph_version between the two (they must chain from one to the other, else 'missing'), the ids the
 * moving transactions wrote (more than `maxIds` writes: 'too_large', nothing more read) and the rows of those ids now.
 * The rows are exactly those of the version read: with a graph of `sinceVersion` they make the graph of that version.
 */
export async function readGraphChanges(
  db: Database,
  organizationId: string,
  sinceVersion: number,
  maxIds: number,
): Promise<GraphChangesRead> {
  return readOneSnapshot(db, async (tx) => {
    const graphVersion = await versionOf(tx, organizationId);
    if (graphVersion === sinceVersion) return { status: 'current', graphVersion };
    if (graphVersion < sinceVersion) return { status: 'missing', graphVersion };
    const moves = await tx.query<{ graph_version: string; previous_version: string }>(
      `SELECT graph_version, previous_version FROM graph_versions
       WHERE organization_id = $1 AND graph_version > $2 AND graph_version <= $3 ORDER BY graph_version`,
      [organizationId, sinceVersion, graphVersion],
    );
    let at = sinceVersion;
    for (const m of moves.rows) {
      if (Number(m.previous_version) !== at) return { status: 'missing', graphVersion };
      at = Number(m.graph_version);
    }
    if (at !== graphVersion) return { status: 'missing', graphVersion };
    const writes = `SELECT c.kind, c.ids FROM graph_changes c WHERE c.organization_id = $1 AND c.xact IN (
        SELECT v.xact FROM graph_versions v WHERE v.organization_id = $1 AND v.graph_version > $2 AND v.graph_version <= $3)`;
    const args = [organizationId, sinceVersion, graphVersion];
    const counted = await tx.query<{ n: string }>(
      `SELECT coalesce(sum(cardinality(w.ids)), 0) AS n FROM (${writes}) w`,
      args,
    );
    if (Number(counted.rows[0]?.n ?? 0) > maxIds) return { status: 'too_large', graphVersion };
    const byKind = await tx.query<{ kind: GraphChangeKind; ids: string[] }>(
      `SELECT w.kind, array_agg(DISTINCT i) AS ids FROM (${writes}) w, unnest(w.ids) AS i GROUP BY w.kind`,
      args,
    );
    const ids: Record<GraphChangeKind, string[]> = { providers: [], services: [], schedules: [] };
    for (const r of byKind.rows) ids[r.kind] = r.ids;
    const rowsOf = async <R>(kind: GraphChangeKind, json: boolean): Promise<ChangedRow<R>[]> => {
      if (ids[kind].length === 0) return [];
      const r = await tx.query(CHANGED_ROW_QUERIES[kind], [organizationId, ids[kind]]);
      return r.rows.map(({ row, after, ...rest }) => ({
        row: (json ? JSON.parse(row as string) : rest) as R,
        after: (after as string | null) ?? null,
      }));
    };
    return {
      status: 'changed',
      graphVersion,
      ids,
      providers: await rowsOf<ProviderGraphRow>('providers', true),
      services: await rowsOf<ServiceGraphRow>('services', true),
      schedules: await rowsOf<ScheduleGraphRow>('schedules', false),
    };
  });
}

async function versionOf(tx: Queryable, organizationId: string): Promise<number> {
  const r = await tx.query<{ graph_version: string }>('SELECT graph_version FROM organizations WHERE id = $1', [
    organizationId,
  ]);
  return Number(r.rows[0]?.graph_version ?? 0);
}

/**
 * Drops the change record (graph_versions and graph_changes) written before `before`, of every organization, in one
 * statement (so a version's move is never kept without its writes). The snapshot builder runs it each step with the
 * snapshots' own age (GRAPH_SNAPSHOT_KEEP_MS): a graph older than the record is read from a snapshot kept or its rows.
 */
export async function pruneGraphChanges(db: Queryable, before: Date): Promise<void> {
  await db.query(
    `WITH v AS (DELETE FROM graph_versions WHERE created_at < $1),
     c AS (DELETE FROM graph_changes WHERE created_at < $1)
     SELECT 1`,
    [before],
  );
}
