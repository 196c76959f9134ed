import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** A continuity record (a client seen by a provider) as the API answers it. */
export interface ContinuityRecord {
  id: string;
  providerId: string;
  clientRef: string;
  lastSeenAt: string | null;
  createdAt: string;
}

/** Maps a continuity_records row to a ContinuityRecord. */
function toContinuityRecord(row: Record<string, any>): ContinuityRecord {
  return {
    id: row.id as string,
    providerId: row.provider_id as string,
    clientRef: row.client_ref as string,
    lastSeenAt: row.last_seen_at ? (row.last_seen_at as Date).toISOString() : null,
    createdAt: (row.created_at as Date).toISOString(),
  };
}

/** What identifies a continuity record: one per client and provider in an organization. */
export interface ContinuityKey {
  organizationId: string;
  clientRef: string;
  providerId: string;
}

/** Reads the continuity record of a client and provider, or undefined. */
export async function findContinuityRecord(
  db: Queryable,
  k: ContinuityKey,
  opts: { forUpdate?: boolean } = {},
): Promise<ContinuityRecord | undefined> {
  const r = await db.query(
    `SELECT * FROM continuity_records WHERE organization_id = $1 AND client_ref = $2 AND provider_id = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [k.organizationId, k.clientRef, k.providerId],
  );
  return r.rows[0] ? toContinuityRecord(r.rows[0]) : undefined;
}

/**
 * Inserts the continuity record of a client and provider, or, when it exists, moves its lastSeenAt to `lastSeenAt`
 * (kept as it was when that is null); returns the record as stored.
 */
export async function upsertContinuityRecord(
  tx: Queryable,
  c: ContinuityKey & { id: string; platformId: string; lastSeenAt: Date | null; now: Date },
): Promise<ContinuityRecord> {
  const r = await tx.query(
    `INSERT INTO continuity_records (id, platform_id, organization_id, provider_id, client_ref, last_seen_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)
     ON CONFLICT (organization_id, client_ref, provider_id) DO UPDATE SET last_seen_at = coalesce(EXCLUDED.last_seen_at, continuity_records.last_seen_at)
     RETURNING *`,
    [c.id, c.platformId, c.organizationId, c.providerId, c.clientRef, c.lastSeenAt, c.now],
  );
  return toContinuityRecord(r.rows[0]);
}

/** Lists a client's continuity records in an organization in id order after `after`, at most `limit` rows. */
export async function listContinuityRecords(
  db: Queryable,
  f: { organizationId: string; clientRef: string },
  page: { after: string; limit: number },
): Promise<ContinuityRecord[]> {
  const query = {
    where: ['organization_id = $1', 'client_ref = $2'],
    args: [f.organizationId, f.clientRef] as unknown[],
  };
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: [page.after], limit: page.limit });
  const r = await db.query(
    `SELECT * FROM continuity_records WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    query.args,
  );
  return r.rows.map(toContinuityRecord);
}

/** The providers that have seen a client in an organization (one row per continuity record). */
export async function continuityProviderIds(
  db: Queryable,
  f: { organizationId: string; clientRef: string },
): Promise<string[]> {
  const r = await db.query(
    'SELECT provider_id FROM continuity_records WHERE organization_id = $1 AND client_ref = $2',
    [f.organizationId, f.clientRef],
  );
  return r.rows.map((x) => x.provider_id as string);
}
