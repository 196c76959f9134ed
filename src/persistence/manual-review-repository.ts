import type { Queryable } from './database.js';

/** A provider routed to manual review, with why. */
export interface ReviewRow {
  provider_id: string;
  reasons: unknown[];
}

/** Placeholders (`$n`) of the statement that embeds the upsert, for each value it needs. */
export interface ReviewUpsertPlaceholders {
  organizationId: string;
  platformId: string;
  /** When the providers were seen (a timestamptz). */
  seenAt: string;
  /** The {@link ReviewRow}s as JSON text. */
  rows: string;
}

/**
 * The CTEs (`review_input`, `review_stale`, `review_upsert`) that open manual-review entries, reopen resolved ones
 * and refresh their reasons and last sighting, for a statement to embed after its `WITH`. Rows already open with the
 * same reasons and seen within a minute are filtered out before the upsert, so concurrent resolutions do not queue
 * on the same rows' locks; the rest are locked in provider order.
 */
export function reviewUpsertCtes(ph: ReviewUpsertPlaceholders): string {
  return `review_input AS (SELECT * FROM jsonb_to_recordset(${ph.rows}::jsonb) AS x(provider_id text, reasons jsonb)),
     review_stale AS (
       SELECT i.* FROM review_input i LEFT JOIN manual_review_entries m ON m.organization_id = ${ph.organizationId} AND m.provider_id = i.provider_id
       WHERE m.provider_id IS NULL OR m.status = 'resolved' OR m.reasons <> i.reasons OR m.last_seen_at < ${ph.seenAt}::timestamptz - interval '1 minute'),
     review_upsert AS (
       INSERT INTO manual_review_entries (organization_id, provider_id, platform_id, reasons, status, first_seen_at, last_seen_at)
       SELECT ${ph.organizationId}, provider_id, ${ph.platformId}, reasons, 'open', ${ph.seenAt}, ${ph.seenAt} FROM review_stale ORDER BY provider_id
       ON CONFLICT (organization_id, provider_id) DO UPDATE SET reasons = EXCLUDED.reasons, last_seen_at = EXCLUDED.last_seen_at, status = 'open', resolved_at = NULL)`;
}

const UPSERT_REVIEW_SQL = `WITH ${reviewUpsertCtes({ organizationId: '$1', platformId: '$2', seenAt: '$3', rows: '$4' })} SELECT 1`;

/** Opens or refreshes the manual-review entries of providers seen at `seenAt` (see {@link reviewUpsertCtes}); no rows, no query. */
export async function upsertManualReview(db: Queryable, p: { organizationId: string; platformId: string; seenAt: Date; rows: readonly ReviewRow[] }): Promise<void> {
  if (p.rows.length === 0) return;
  await db.query(UPSERT_REVIEW_SQL, [p.organizationId, p.platformId, p.seenAt, JSON.stringify(p.rows)]);
}
