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
    slug: row.slug,
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

/** Reads one service row by id (any organization; callers check tenancy). */
export async function findServiceRow(db: Queryable, id: string) {
  const r = await db.query('SELECT * FROM services WHERE id = $1', [id]);
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
  const where = ['organization_id = $1'];
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

/** The organization a service belongs to (any organization; callers check tenancy), or undefined. */
export async function findServiceOrganization(db: Queryable, id: string): Promise<string | undefined> {
  const r = await db.query('SELECT organization_id FROM services WHERE id = $1', [id]);
  return r.rows[0]?.organization_id as string | undefined;
}
