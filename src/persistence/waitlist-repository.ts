import type { LapsedSlot, WaitlistEntryState, WaitlistOffer } from '../../machines/waitlist-entry-machine.js';
import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** Status of a waitlist entry, kept in `waitlist_entries.status`: the waitlist entry machine's state. */
export type WaitlistEntryStatus = WaitlistEntryState;

/** What a waitlist entry keeps in its `doc` column (the offer fields are absent on entries made before offers). */
export interface WaitlistDoc {
  serviceId: string;
  customer: { name: string; email: string };
  constraints: Record<string, unknown> | null;
  preferences: Record<string, unknown> | null;
  resolutionId: string | null;
  cancelledAt: string | null;
  /** The mode of the key that created the entry: its offers' events carry it. */
  mode?: 'live' | 'test';
  offer?: WaitlistOffer | null;
  offersMade?: number;
  lapsedSlots?: LapsedSlot[];
  bookingId?: string | null;
  bookedAt?: string | null;
}

/** The offer of a waitlist entry as the API answers it. */
export interface WaitlistOfferView {
  resolutionId: string;
  holdId: string;
  optionId: string;
  providerId: string;
  slotStart: string;
  expiresAt: string;
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
  offer: WaitlistOfferView | null;
  offersMade: number;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
}

/** Maps a waitlist_entries row to a WaitlistEntryRecord. */
function toWaitlistEntry(row: Record<string, any>): WaitlistEntryRecord {
  const d = row.doc as WaitlistDoc;
  const status = row.status as WaitlistEntryStatus;
  const o = status === 'offered' || status === 'booked' ? (d.offer ?? null) : null;
  return {
    id: row.id as string,
    status: row.status as WaitlistEntryStatus,
    serviceId: d.serviceId,
    customer: d.customer,
    constraints: d.constraints ?? null,
    preferences: d.preferences ?? null,
    resolutionId: d.resolutionId ?? null,
    offer: o
      ? {
          resolutionId: o.resolutionId,
          holdId: o.holdId,
          optionId: o.optionId,
          providerId: o.providerId,
          slotStart: o.slotStart,
          expiresAt: o.expiresAt,
        }
      : null,
    offersMade: d.offersMade ?? 0,
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
    cancelledAt: d.cancelledAt ?? null,
  };
}

/** A waitlist entry with what the API does not answer: its organization and stored doc. */
export interface StoredWaitlistEntry {
  organizationId: string;
  platformId: string;
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
  return row ? storedEntry(row) : undefined;
}

/** A waitlist_entries row as a StoredWaitlistEntry. */
function storedEntry(row: Record<string, any>): StoredWaitlistEntry {
  return {
    organizationId: row.organization_id as string,
    platformId: row.platform_id as string,
    doc: row.doc as WaitlistDoc,
    entry: toWaitlistEntry(row),
  };
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

/**
 * Writes a waitlist entry's status and doc (and the offer columns from `doc.offer` while offered); returns it. The
 * caller holds the row FOR UPDATE and took the status from the waitlist entry machine.
 */
export async function updateWaitlistEntry(
  tx: Queryable,
  id: string,
  v: { status: WaitlistEntryStatus; doc: WaitlistDoc; now: Date },
): Promise<WaitlistEntryRecord> {
  const offer = v.status === 'offered' || v.status === 'booked' ? (v.doc.offer ?? null) : null;
  const r = await tx.query({
    name: 'update-waitlist-entry',
    text: `UPDATE waitlist_entries SET status = $4, doc = $2, updated_at = $3, offer_resolution_id = $5,
       offer_expires_at = CASE WHEN $4 = 'offered' THEN $6::timestamptz END WHERE id = $1 RETURNING *`,
    values: [id, JSON.stringify(v.doc), v.now, v.status, offer?.resolutionId ?? null, offer?.expiresAt ?? null],
  });
  return toWaitlistEntry(r.rows[0]);
}

/**
 * The waiting entries of an organization whose service's session type (slug) the provider offers, oldest first
 * (creation time, then id): the order a freed slot of that provider is offered in; entries of a removed service are
 * not offered. Read without a lock: each is locked and checked again before an offer.
 */
export async function waitingEntriesForProvider(
  db: Queryable,
  p: { organizationId: string; providerId: string; limit: number },
): Promise<{ id: string; serviceId: string }[]> {
  const r = await db.query({
    name: 'waiting-entries-for-provider',
    text: `SELECT w.id, w.doc->>'serviceId' AS service_id FROM waitlist_entries w
       JOIN services s ON s.id = w.doc->>'serviceId' AND s.organization_id = w.organization_id
       WHERE w.organization_id = $1 AND w.status = 'waiting'
         AND NOT (s.doc ? 'removedAt')
         AND EXISTS (SELECT 1 FROM services ps WHERE ps.organization_id = $1 AND ps.provider_id = $2 AND ps.slug = s.slug)
       ORDER BY w.created_at, w.id LIMIT $3`,
    values: [p.organizationId, p.providerId, p.limit],
  });
  return r.rows.map((row) => ({ id: row.id as string, serviceId: row.service_id as string }));
}

/** The entry holding an offer on `resolutionId`, if any (any status: the caller's machine step decides). */
export async function waitlistEntryOfOffer(db: Queryable, resolutionId: string): Promise<string | undefined> {
  const r = await db.query({
    name: 'waitlist-entry-of-offer',
    text: `SELECT id FROM waitlist_entries WHERE offer_resolution_id = $1 LIMIT 1`,
    values: [resolutionId],
  });
  return r.rows[0]?.id as string | undefined;
}

/** Entries still `offered` whose offer ended at or before `before`: their lapse timer is late (the sweep's repair). */
export async function overdueOffers(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const r = await db.query({
    name: 'overdue-waitlist-offers',
    text: `SELECT id FROM waitlist_entries WHERE status = 'offered' AND offer_expires_at <= $1 ORDER BY offer_expires_at LIMIT $2`,
    values: [before, limit],
  });
  return r.rows.map((row) => row.id as string);
}
