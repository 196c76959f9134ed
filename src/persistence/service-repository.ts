import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** The stored service fields kept in the `doc` column (defaults already applied). */
export interface ServiceDoc {
  title: string;
  duration: number;
  price: number | null;
  currency: string | null;
  modality: 'virtual' | 'in-person' | 'both' | null;
  slotIntervalMinutes: number;
  minimumNoticeMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}

/** A service (session type) as the API answers it. */
export interface ServiceView extends ServiceDoc {
  id: string;
  organizationId: string;
  providerId: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
}

/** Maps a services row to its answer shape. */
export function toServiceView(row: Record<string, any>): ServiceView {
  const d = row.doc as Partial<ServiceDoc>;
  const duration = Number(d.duration);
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    title: d.title ?? '',
    // A removed service keeps its slug in the doc (the column is freed).
    slug: (d as { removedSlug?: string }).removedSlug ?? row.slug,
    duration,
    price: d.price ?? null,
    currency: d.currency ?? null,
    modality: d.modality ?? null,
    slotIntervalMinutes: d.slotIntervalMinutes ?? duration,
    minimumNoticeMinutes: d.minimumNoticeMinutes ?? 0,
    bufferBeforeMinutes: d.bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: d.bufferAfterMinutes ?? 0,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The condition a service row meets until it is removed. A removed row stays (bookings keep naming it) with
 * `removedAt` and its slug in the doc, and a slug column no title can give, so its slug is free for a new service.
 */
export const LIVE_SERVICE_SQL = `NOT (doc ? 'removedAt')`;

/** Reads one service row by id (any organization; callers check tenancy); a removed service is not found. */
export async function findServiceRow(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}) {
  const r = await db.query(
    `SELECT * FROM services WHERE id = $1 AND ${LIVE_SERVICE_SQL}${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return r.rows[0] as Record<string, any> | undefined;
}

/** Writes a service's slug and fields; returns the row, or undefined when the provider has another service with the slug. */
export async function updateServiceRow(tx: Queryable, id: string, slug: string, doc: ServiceDoc, now: Date) {
  try {
    const r = await tx.query(
      `UPDATE services SET slug = $2, doc = $3, updated_at = $4
       WHERE id = $1 AND NOT EXISTS (
         SELECT 1 FROM services o WHERE o.provider_id = services.provider_id AND o.slug = $2 AND o.id <> $1)
       RETURNING *`,
      [id, slug, JSON.stringify(doc), now],
    );
    return r.rows[0] as Record<string, any> | undefined;
  } catch (e) {
    // A concurrent write took the slug between the check and the update.
    const err = e as { code?: string; constraint?: string };
    if (err.code === '23505' && err.constraint === 'services_provider_id_slug_key') return undefined;
    throw e;
  }
}

/** Marks a service removed (see LIVE_SERVICE_SQL) and frees its slug; returns the row as it now is. */
export async function removeServiceRow(tx: Queryable, id: string, now: Date) {
  const r = await tx.query(
    `UPDATE services SET doc = doc || jsonb_build_object('removedAt', $2::text, 'removedSlug', slug),
       slug = 'removed:' || id, updated_at = $3
     WHERE id = $1 AND ${LIVE_SERVICE_SQL} RETURNING *`,
    [id, now.toISOString(), now],
  );
  return r.rows[0] as Record<string, any> | undefined;
}

/** Inserts a service; returns the row, or undefined when the provider already has a service with this slug. */
export async function insertServiceRow(
  tx: Queryable,
  s: {
    id: string;
    platformId: string;
    organizationId: string;
    providerId: string;
    slug: string;
    doc: ServiceDoc;
    now: Date;
  },
) {
  const r = await tx.query(
    `INSERT INTO services (id, platform_id, organization_id, provider_id, slug, doc, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$7) ON CONFLICT (provider_id, slug) DO NOTHING RETURNING *`,
    [s.id, s.platformId, s.organizationId, s.providerId, s.slug, JSON.stringify(s.doc), s.now],
  );
  return r.rows[0] as Record<string, any> | undefined;
}

/** Filters of a service list; `organizationId` is always applied. */
export interface ServiceFilter {
  organizationId: string;
  providerId?: string | undefined;
  slug?: string | undefined;
}

function filterSql(f: ServiceFilter) {
  const where = ['organization_id = $1', LIVE_SERVICE_SQL];
  const args: unknown[] = [f.organizationId];
  if (f.providerId !== undefined) {
    args.push(f.providerId);
    where.push(`provider_id = $${args.length}`);
  }
  if (f.slug !== undefined) {
    args.push(f.slug);
    where.push(`slug = $${args.length}`);
  }
  return { where, args };
}

/** Counts the services matching a filter. */
export async function countServices(db: Queryable, f: ServiceFilter): Promise<number> {
  const { where, args } = filterSql(f);
  const r = await db.query(`SELECT count(*) AS n FROM services WHERE ${where.join(' AND ')}`, args);
  return Number(r.rows[0].n);
}

/** Lists services matching a filter in id order, after the keyset position `after`, at most `limit` rows. */
export async function listServiceRows(
  db: Queryable,
  f: ServiceFilter,
  page: { after?: string | undefined; limit: number },
) {
  const { where, args } = filterSql(f);
  const orderLimit = keysetPage(
    { where, args },
    { columns: ['id'], order: 'asc', after: page.after === undefined ? undefined : [page.after], limit: page.limit },
  );
  const r = await db.query(`SELECT * FROM services WHERE ${where.join(' AND ')} ${orderLimit}`, args);
  return r.rows as Record<string, any>[];
}

/** The organization a service belongs to (any organization; callers check tenancy), or undefined (also when removed). */
export async function findServiceOrganization(db: Queryable, id: string): Promise<string | undefined> {
  const r = await db.query(`SELECT organization_id FROM services WHERE id = $1 AND ${LIVE_SERVICE_SQL}`, [id]);
  return r.rows[0]?.organization_id as string | undefined;
}
