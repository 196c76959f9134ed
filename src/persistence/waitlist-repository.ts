import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** Status of a waitlist entry, kept in `waitlist_entries.status`. */
export type WaitlistEntryStatus = 'waiting' | 'cancelled';

/** What a waitlist entry keeps in its `doc` column. */
export interface WaitlistDoc {
  serviceId: string;
  customer: { name: string; email: string };
  constraints: Record<string, unknown> | null;
  preferences: Record<string, unknown> | null;
  resolutionId: string | null;
  cancelledAt: string | null;
}

/** A waitlist entry as the API answers it. */
export interface WaitlistEntryRecord {
  id: string;
  status: WaitlistEntryStatus;
  serviceId: string;
  customer: { name: string; email: string };
  constraints: Record<string, unknown> | null;
  preferences: Record<string, unknown> | null;
  resolutionId: string | null;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
}

/** Maps a waitlist_entries row to a WaitlistEntryRecord. */
function toWaitlistEntry(row: Record<string, any>): WaitlistEntryRecord {
  const d = row.doc as WaitlistDoc;
  return {
    id: row.id as string,
    status: row.status as WaitlistEntryStatus,
    serviceId: d.serviceId,
    customer: d.customer,
    constraints: d.constraints ?? null,
    preferences: d.preferences ?? null,
    resolutionId: d.resolutionId ?? null,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
    cancelledAt: d.cancelledAt ?? null,
  };
}

/** A waitlist entry with what the API does not answer: its organization and stored doc. */
export interface StoredWaitlistEntry {
  organizationId: string;
  doc: WaitlistDoc;
  entry: WaitlistEntryRecord;
}

/** Reads one waitlist entry by id (any organization; callers check tenancy), or undefined. */
export async function findWaitlistEntry(
  db: Queryable,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<StoredWaitlistEntry | undefined> {
  const r = await db.query(`SELECT * FROM waitlist_entries WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = r.rows[0];
  return row
    ? { organizationId: row.organization_id as string, doc: row.doc as WaitlistDoc, entry: toWaitlistEntry(row) }
    : undefined;
}

/** Inserts a waitlist entry in the status given; returns it. */
export async function insertWaitlistEntry(
  tx: Queryable,
  w: {
    id: string;
    platformId: string;
    organizationId: string;
    status: WaitlistEntryStatus;
    doc: WaitlistDoc;
    now: Date;
  },
): Promise<WaitlistEntryRecord> {
  const r = await tx.query(
    `INSERT INTO waitlist_entries (id, platform_id, organization_id, status, doc, created_at, updated_at) VALUES ($1,$2,$3,$6,$4,$5,$5) RETURNING *`,
    [w.id, w.platformId, w.organizationId, JSON.stringify(w.doc), w.now, w.status],
  );
  return toWaitlistEntry(r.rows[0]);
}

/** Lists an organization's waitlist entries (of one status, when given) in id order after `after`, at most `limit` rows. */
export async function listWaitlistEntries(
  db: Queryable,
  f: { organizationId: string; status?: WaitlistEntryStatus | undefined },
  page: { after: string; limit: number },
): Promise<WaitlistEntryRecord[]> {
  const query = { where: ['organization_id = $1'], args: [f.organizationId] as unknown[] };
  if (f.status) {
    query.args.push(f.status);
    query.where.push(`status = $${query.args.length}`);
  }
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: [page.after], limit: page.limit });
  const r = await db.query(
    `SELECT * FROM waitlist_entries WHERE ${query.where.join(' AND ')} ${orderLimit}`,
    query.args,
  );
  return r.rows.map(toWaitlistEntry);
}

/** Writes a waitlist entry's status and doc; returns it. */
export async function updateWaitlistEntry(
  tx: Queryable,
  id: string,
  v: { status: WaitlistEntryStatus; doc: WaitlistDoc; now: Date },
): Promise<WaitlistEntryRecord> {
  const r = await tx.query(
    `UPDATE waitlist_entries SET status = $4, doc = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
    [id, JSON.stringify(v.doc), v.now, v.status],
  );
  return toWaitlistEntry(r.rows[0]);
}
