import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** A provider routed to manual review, with why. */
export interface ReviewRow {
  provider_id: string;
  reasons: readonly unknown[];
}

/**
 * Opens manual-review entries, reopens resolved ones and refreshes their reasons and last sighting, in one
 * statement. Rows already open with the same reasons and seen within a minute are filtered out before the upsert (so
 * recorders do not queue on the same rows' locks), and so are sightings older than what the entry already holds: a
 * sighting recorded late (a worker's backlog) neither moves `lastSeenAt` back nor reopens an entry resolved after it.
 * The rest are locked in provider order.
 */
const UPSERT_REVIEW_SQL = `WITH review_input AS (SELECT * FROM jsonb_to_recordset($4::jsonb) AS x(provider_id text, reasons jsonb)),
     review_stale AS (
       SELECT i.* FROM review_input i LEFT JOIN manual_review_entries m ON m.organization_id = $1 AND m.provider_id = i.provider_id
       WHERE m.provider_id IS NULL
          OR (m.status = 'resolved' AND coalesce(m.resolved_at, '-infinity') <= $3::timestamptz)
          OR (m.status = 'open' AND m.last_seen_at <= $3::timestamptz
              AND (m.reasons <> i.reasons OR m.last_seen_at < $3::timestamptz - interval '1 minute')))
     INSERT INTO manual_review_entries (organization_id, provider_id, platform_id, reasons, status, first_seen_at, last_seen_at)
     SELECT $1, provider_id, $2, reasons, 'open', $3, $3 FROM review_stale ORDER BY provider_id
     ON CONFLICT (organization_id, provider_id) DO UPDATE SET reasons = EXCLUDED.reasons, last_seen_at = EXCLUDED.last_seen_at, status = 'open', resolved_at = NULL`;

/** Opens or refreshes the manual-review entries of providers seen at `seenAt` (see UPSERT_REVIEW_SQL); no rows, no query. */
export async function upsertManualReview(
  db: Queryable,
  p: { organizationId: string; platformId: string; seenAt: Date; rows: readonly ReviewRow[] },
): Promise<void> {
  if (p.rows.length === 0) return;
  await db.query({
    name: 'upsert-manual-review',
    text: UPSERT_REVIEW_SQL,
    values: [p.organizationId, p.platformId, p.seenAt, JSON.stringify(p.rows)],
  });
}

/** Status of a manual-review entry, kept in `manual_review_entries.status`. */
export type ManualReviewStatus = 'open' | 'resolved';

/** A manual-review entry (with its provider's displayName) as the API answers it. */
export interface ManualReviewEntryRecord {
  providerId: string;
  displayName: string;
  reasons: { code: string; field: string; detail: string }[];
  firstSeenAt: string;
  lastSeenAt: string;
  status: ManualReviewStatus;
  resolvedAt: string | null;
}

/** Maps a manual_review_entries row joined with its provider's displayName to a ManualReviewEntryRecord. */
function toManualReviewEntry(row: Record<string, any>): ManualReviewEntryRecord {
  return {
    providerId: row.provider_id as string,
    displayName: (row.display_name as string | null) ?? '',
    reasons: row.reasons as ManualReviewEntryRecord['reasons'],
    firstSeenAt: (row.first_seen_at as Date).toISOString(),
    lastSeenAt: (row.last_seen_at as Date).toISOString(),
    status: row.status as ManualReviewStatus,
    resolvedAt: row.resolved_at ? (row.resolved_at as Date).toISOString() : null,
  };
}

const REVIEW_SELECT = `SELECT m.*, p.doc->>'displayName' AS display_name FROM manual_review_entries m JOIN providers p ON p.id = m.provider_id`;

/** Lists an organization's manual-review entries of one status in provider order after `after`, at most `limit` rows. */
export async function listManualReviewEntries(
  db: Queryable,
  f: { organizationId: string; status: ManualReviewStatus },
  page: { after: string; limit: number },
): Promise<ManualReviewEntryRecord[]> {
  const query = { where: ['m.organization_id = $1', 'm.status = $2'], args: [f.organizationId, f.status] as unknown[] };
  const orderLimit = keysetPage(query, {
    columns: ['m.provider_id'],
    order: 'asc',
    after: [page.after],
    limit: page.limit,
  });
  const r = await db.query(`${REVIEW_SELECT} WHERE ${query.where.join(' AND ')} ${orderLimit}`, query.args);
  return r.rows.map(toManualReviewEntry);
}

/** Reads the manual-review entry of a provider in an organization, or undefined; `forUpdate` locks the entry (not the provider). */
export async function findManualReviewEntry(
  db: Queryable,
  k: { organizationId: string; providerId: string },
  opts: { forUpdate?: boolean } = {},
): Promise<ManualReviewEntryRecord | undefined> {
  const r = await db.query(
    `${REVIEW_SELECT} WHERE m.organization_id = $1 AND m.provider_id = $2${opts.forUpdate ? ' FOR UPDATE OF m' : ''}`,
    [k.organizationId, k.providerId],
  );
  return r.rows[0] ? toManualReviewEntry(r.rows[0]) : undefined;
}

/** Writes the status of a provider's manual-review entry and when it was resolved. */
export async function setManualReviewStatus(
  tx: Queryable,
  k: { organizationId: string; providerId: string },
  v: { status: ManualReviewStatus; resolvedAt: Date | null },
): Promise<void> {
  await tx.query(
    `UPDATE manual_review_entries SET status = $4, resolved_at = $3 WHERE organization_id = $1 AND provider_id = $2`,
    [k.organizationId, k.providerId, v.resolvedAt, v.status],
  );
}
