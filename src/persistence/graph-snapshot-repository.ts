import type pg from 'pg';
import type { Database, Queryable } from './database.js';

/** A stored graph snapshot: its parts in order (each a gzipped slice of one buffer) and its format. */
export interface StoredGraphSnapshot {
  format: number;
  parts: Buffer[];
}

/**
 * Reads the snapshot of an organization's graph at `graphVersion` in one statement, bounded by `timeoutMs` rather than a
 * request's statement timeout (a million providers' snapshot is ~120 MB); undefined when none is stored or its parts are
 * not all there.
 */
export async function readGraphSnapshot(
  db: Database,
  timeoutMs: number,
  organizationId: string,
  graphVersion: number,
): Promise<StoredGraphSnapshot | undefined> {
  const rows = await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
    const r = await tx.query<{ format: number; part: number; parts: number; body: Buffer }>({
      text: `SELECT format, part, parts, body FROM graph_snapshots WHERE organization_id = $1 AND graph_version = $2
       ORDER BY part`,
      values: [organizationId, graphVersion],
      query_timeout: timeoutMs + 1000,
    } as pg.QueryConfig);
    return r.rows;
  });
  if (rows.length === 0) return undefined;
  const format = rows[0]!.format;
  if (rows.length !== rows[0]!.parts || rows.some((x, i) => x.part !== i || x.format !== format)) return undefined;
  return { format, parts: rows.map((x) => x.body) };
}

/** Prefix of the advisory-lock key of an organization's snapshot builds (hashed with its id). */
const BUILD_LOCK = 'graph_snapshot:';

/**
 * Stores the snapshot of an organization's graph at `graphVersion` under the organization's build lease: a
 * transaction-scoped advisory lock (safe behind a transaction pooler), so that of several processes that would store
 * the same version only the first builds it (`parts` is called under the lease, and only when the version is not
 * stored yet in `format`, or `replace` is asked); the others wait for the lease and find it stored ('present'). All
 * parts are written in one statement, then the organization's snapshots of older versions written before `keepSince`
 * are dropped (resolutions made on a version read its snapshot for their candidates while it is kept). Everything,
 * building included, is bounded by `timeoutMs` rather than a request's bounds.
 */
export async function writeGraphSnapshot(
  db: Database,
  timeoutMs: number,
  s: {
    organizationId: string;
    graphVersion: number;
    format: number;
    parts: () => Promise<Buffer[]>;
    now: Date;
    keepSince: Date;
    /** The one stored at this version could not be used (damaged): write this one over it. */
    replace?: boolean;
  },
): Promise<'written' | 'present'> {
  return db.transaction(async (tx) => {
    // Megabytes of parts built while the transaction is open: bounded by their own timeouts, not a request's (SET LOCAL
    // ends with the transaction).
    const ms = Math.floor(timeoutMs);
    await tx.query(`SET LOCAL statement_timeout = ${ms}`);
    await tx.query(`SET LOCAL idle_in_transaction_session_timeout = ${ms}`);
    await tx.query(`SET LOCAL lock_timeout = ${ms}`);
    await tx.query({
      text: 'SELECT pg_advisory_xact_lock(hashtext($1))',
      values: [BUILD_LOCK + s.organizationId],
      query_timeout: timeoutMs + 1000,
    } as pg.QueryConfig);
    const stored = await tx.query<{ format: number }>(
      'SELECT format FROM graph_snapshots WHERE organization_id = $1 AND graph_version = $2 LIMIT 1',
      [s.organizationId, s.graphVersion],
    );
    // One of another format (written before an upgrade) is never read again: replaced, as a damaged one asked to be.
    if (stored.rows.length > 0) {
      if (stored.rows[0]!.format === s.format && s.replace !== true) return 'present';
      await tx.query('DELETE FROM graph_snapshots WHERE organization_id = $1 AND graph_version = $2', [
        s.organizationId,
        s.graphVersion,
      ]);
    }
    const parts = await s.parts();
    await tx.query({
      text: `INSERT INTO graph_snapshots (platform_id, organization_id, graph_version, format, part, parts, body, created_at)
       SELECT o.platform_id, o.id, $2, $3, p.part - 1, $4, p.body, $5
       FROM organizations o, unnest($6::bytea[]) WITH ORDINALITY AS p(body, part)
       WHERE o.id = $1
       ON CONFLICT (organization_id, graph_version, part) DO NOTHING`,
      values: [s.organizationId, s.graphVersion, s.format, parts.length, s.now, parts],
      // The client's own wait, which the pool sets a little above a request's statement timeout.
      query_timeout: timeoutMs + 1000,
    } as pg.QueryConfig);
    await tx.query(
      'DELETE FROM graph_snapshots WHERE organization_id = $1 AND graph_version < $2 AND created_at < $3',
      [s.organizationId, s.graphVersion, s.keepSince],
    );
    return 'written';
  });
}

/**
 * Organizations that have a stored graph snapshot (so a graph large enough to get one) but none of their current
 * version in `format`: their graph changed since, or the one stored is of an older format. With each, the ids written
 * (providers, services, calendar connections, as the change record counts them) since its latest stored snapshot. At
 * most `limit`, by id.
 */
export async function listGraphsWithoutSnapshot(
  db: Queryable,
  limit: number,
  format: number,
): Promise<{ organizationId: string; graphVersion: number; changedIds: number }[]> {
  const r = await db.query<{ id: string; graph_version: string; changed_ids: string }>(
    `SELECT o.id, o.graph_version,
       (SELECT coalesce(sum(cardinality(c.ids)), 0) FROM graph_changes c WHERE c.organization_id = o.id AND c.xact IN (
          SELECT v.xact FROM graph_versions v WHERE v.organization_id = o.id AND v.graph_version >
            (SELECT max(s.graph_version) FROM graph_snapshots s WHERE s.organization_id = o.id))) AS changed_ids
     FROM organizations o
     WHERE EXISTS (SELECT 1 FROM graph_snapshots s WHERE s.organization_id = o.id)
       AND NOT EXISTS (SELECT 1 FROM graph_snapshots s
                       WHERE s.organization_id = o.id AND s.graph_version = o.graph_version AND s.format = $2)
     ORDER BY o.id LIMIT $1`,
    [limit, format],
  );
  return r.rows.map((x) => ({
    organizationId: x.id,
    graphVersion: Number(x.graph_version),
    changedIds: Number(x.changed_ids),
  }));
}

/**
 * Organizations whose graph has no stored snapshot at all and moved to its current version since `movedSince` (a bulk
 * import, a seeding), leaving out those given in `except` at the version given there (found too small at it), at most
 * `limit`, by id.
 */
export async function listGraphsNeverStored(
  db: Queryable,
  opts: { movedSince: Date; except: ReadonlyMap<string, number>; limit: number },
): Promise<{ organizationId: string; graphVersion: number }[]> {
  const r = await db.query<{ id: string; graph_version: string }>(
    `SELECT o.id, o.graph_version FROM organizations o
     WHERE (o.id, o.graph_version) IN
             (SELECT v.organization_id, v.graph_version FROM graph_versions v WHERE v.created_at >= $1)
       AND NOT EXISTS (SELECT 1 FROM graph_snapshots s WHERE s.organization_id = o.id)
       AND (o.id, o.graph_version) NOT IN (SELECT * FROM unnest($2::text[], $3::bigint[]))
     ORDER BY o.id LIMIT $4`,
    [opts.movedSince, [...opts.except.keys()], [...opts.except.values()], opts.limit],
  );
  return r.rows.map((x) => ({ organizationId: x.id, graphVersion: Number(x.graph_version) }));
}

/**
 * Organizations whose graph has no stored snapshot at all, whenever it last moved, after `after` by id (all from the
 * first when undefined), at most `limit`, by id: a walk over every such organization, a page at a time.
 */
export async function listGraphsNeverStoredAfter(
  db: Queryable,
  opts: { after: string | undefined; limit: number },
): Promise<{ organizationId: string; graphVersion: number }[]> {
  const r = await db.query<{ id: string; graph_version: string }>(
    `SELECT o.id, o.graph_version FROM organizations o
     WHERE ($1::text IS NULL OR o.id > $1)
       AND NOT EXISTS (SELECT 1 FROM graph_snapshots s WHERE s.organization_id = o.id)
     ORDER BY o.id LIMIT $2`,
    [opts.after ?? null, opts.limit],
  );
  return r.rows.map((x) => ({ organizationId: x.id, graphVersion: Number(x.graph_version) }));
}

/**
 * Organizations with a stored graph snapshot in `format` (a graph large enough to get one; of its current version or
 * an earlier one) that had a resolution at or after `resolvedSince`, the most recently resolved first, at most `limit`:
 * the graphs a process about to serve is likely to be asked for.
 */
export async function listRecentlyResolvedLargeGraphs(
  db: Queryable,
  opts: { resolvedSince: Date; format: number; limit: number },
): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT s.organization_id AS id
     FROM (SELECT DISTINCT organization_id FROM graph_snapshots WHERE format = $2) s
     CROSS JOIN LATERAL (SELECT max(r.created_at) AS at FROM resolutions r
                         WHERE r.organization_id = s.organization_id AND r.created_at >= $1) last
     WHERE last.at IS NOT NULL
     ORDER BY last.at DESC, s.organization_id LIMIT $3`,
    [opts.resolvedSince, opts.format, opts.limit],
  );
  return r.rows.map((x) => x.id);
}

/** Prefix of the advisory-lock key of an organization's snapshot builder lease (hashed with its id). */
const BUILDER_LEASE = 'graph_snapshot_builder:';

/**
 * Runs `fn` under the organization's snapshot-build lease, or answers undefined at once when another process holds it:
 * a transaction-scoped advisory lock taken without waiting (safe behind a transaction pooler), held while `fn` runs
 * (its own statements use other connections), under a job's bound of `boundMs` instead of a call's. Not the lock of
 * writeGraphSnapshot: `fn` stores the snapshot under that one.
 */
export async function withGraphBuildLease<T>(
  db: Database,
  organizationId: string,
  boundMs: number,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(
    async (tx) => {
      const r = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [
        BUILDER_LEASE + organizationId,
      ]);
      return r.rows[0]?.got ? fn() : undefined;
    },
    { boundMs },
  );
}

/** Whether an organization has at least `n` providers (counted no further: a bounded walk of its index). */
export async function hasAtLeastProviders(db: Queryable, organizationId: string, n: number): Promise<boolean> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM (SELECT 1 FROM providers WHERE organization_id = $1 LIMIT $2) x',
    [organizationId, Math.max(0, Math.floor(n))],
  );
  return (r.rows[0]?.n ?? 0) >= n;
}

/** The latest version of an organization's graph at or below `atMost` that has a stored snapshot, or undefined. */
export async function latestGraphSnapshotVersion(
  db: Queryable,
  organizationId: string,
  atMost: number,
): Promise<number | undefined> {
  const r = await db.query<{ v: string | null }>(
    'SELECT max(graph_version) AS v FROM graph_snapshots WHERE organization_id = $1 AND graph_version <= $2',
    [organizationId, atMost],
  );
  const v = r.rows[0]?.v;
  return v === null || v === undefined ? undefined : Number(v);
}
