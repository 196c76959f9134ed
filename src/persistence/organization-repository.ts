import { tagChange, type Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** The default of the `waitlistOfferTtlSeconds` setting (CONTRACT part 8). */
export const WAITLIST_OFFER_TTL_DEFAULT = 900;

/** An organization's waitlist offer lifetime in seconds (its setting, or the default). */
export async function waitlistOfferTtlSeconds(db: Queryable, organizationId: string): Promise<number> {
  const r = await db.query({
    name: 'waitlist-offer-ttl',
    text: `SELECT settings->'waitlistOfferTtlSeconds' AS ttl FROM organizations WHERE id = $1`,
    values: [organizationId],
  });
  const ttl = r.rows[0]?.ttl;
  return typeof ttl === 'number' ? ttl : WAITLIST_OFFER_TTL_DEFAULT;
}

/** An organization row mapped to its answer shape. */
export interface OrganizationRecord {
  id: string;
  platformId: string;
  externalId: string;
  name: string;
  settings: {
    plan: 'free' | 'launch' | 'scale' | 'enterprise';
    allowUnverifiable: boolean;
    timezone: string | null;
    waitlistOfferTtlSeconds: number;
  };
  providerGraphVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** Maps a database row to an OrganizationRecord. */
export function toOrganization(row: Record<string, any>): OrganizationRecord {
  const s = row.settings ?? {};
  return {
    id: row.id,
    platformId: row.platform_id,
    externalId: row.external_id,
    name: row.name,
    settings: {
      plan: s.plan ?? 'free',
      allowUnverifiable: s.allowUnverifiable ?? false,
      timezone: s.timezone ?? null,
      waitlistOfferTtlSeconds: s.waitlistOfferTtlSeconds ?? WAITLIST_OFFER_TTL_DEFAULT,
    },
    providerGraphVersion: Number(row.graph_version),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The change tag (database.ts tagChange) of a write to an organization's row. */
export function organizationChangeTag(organizationId: string): string {
  return `organization:${organizationId}`;
}

/** Reads one organization by id, or undefined. */
export async function findOrganization(
  db: Queryable,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<OrganizationRecord | undefined> {
  const r = await db.query(`SELECT * FROM organizations WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ? toOrganization(r.rows[0]) : undefined;
}

/** Advances an organization's provider graph version by `changes` (one per change) and returns the new value. */
export async function bumpGraphVersion(tx: Queryable, organizationId: string, changes = 1): Promise<number> {
  tagChange(tx, organizationChangeTag(organizationId));
  const r = await tx.query<{ graph_version: number }>(
    'UPDATE organizations SET graph_version = graph_version + $2 WHERE id = $1 RETURNING graph_version',
    [organizationId, changes],
  );
  return Number(r.rows[0]?.graph_version ?? 0);
}

/** Reads the default organization of a platform (where its platform keys act without Service-Organization-Id). */
export async function findDefaultOrganizationId(db: Queryable, platformId: string): Promise<string | undefined> {
  const r = await db.query('SELECT default_organization_id FROM platforms WHERE id = $1', [platformId]);
  return (r.rows[0] as { default_organization_id: string } | undefined)?.default_organization_id;
}

/** Inserts an organization; returns it, or undefined when its platform has one with this externalId already. */
export async function insertOrganization(
  tx: Queryable,
  o: {
    id: string;
    platformId: string;
    externalId: string;
    name: string;
    settings: OrganizationRecord['settings'];
    now: Date;
  },
): Promise<OrganizationRecord | undefined> {
  const r = await tx.query(
    `INSERT INTO organizations (id, platform_id, external_id, name, settings, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$6)
     ON CONFLICT (platform_id, external_id) DO NOTHING RETURNING *`,
    [o.id, o.platformId, o.externalId, o.name, JSON.stringify(o.settings), o.now],
  );
  return r.rows[0] ? toOrganization(r.rows[0]) : undefined;
}

/**
 * Lists organizations in id order after `after`, at most `limit` rows: every one of a platform (`platformId`), or
 * only the one named (`organizationId`).
 */
export async function listOrganizations(
  db: Queryable,
  f: { platformId: string } | { organizationId: string },
  page: { after: string; limit: number },
): Promise<OrganizationRecord[]> {
  const query =
    'platformId' in f
      ? { where: ['platform_id = $1'], args: [f.platformId] as unknown[] }
      : { where: ['id = $1'], args: [f.organizationId] as unknown[] };
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: [page.after], limit: page.limit });
  const r = await db.query(`SELECT * FROM organizations WHERE ${query.where.join(' AND ')} ${orderLimit}`, query.args);
  return r.rows.map(toOrganization);
}

/** Writes an organization's name and settings; returns it. */
export async function updateOrganization(
  tx: Queryable,
  id: string,
  v: { name: string; settings: OrganizationRecord['settings']; now: Date },
): Promise<OrganizationRecord> {
  tagChange(tx, organizationChangeTag(id));
  const r = await tx.query(
    'UPDATE organizations SET name = $2, settings = $3, updated_at = $4 WHERE id = $1 RETURNING *',
    [id, v.name, JSON.stringify(v.settings), v.now],
  );
  return toOrganization(r.rows[0]);
}

/** Reads an organization's provider graph version (0 for an unknown organization). */
export async function readGraphVersion(db: Queryable, organizationId: string): Promise<number> {
  const r = await db.query<{ graph_version: number }>('SELECT graph_version FROM organizations WHERE id = $1', [
    organizationId,
  ]);
  return Number(r.rows[0]?.graph_version ?? 0);
}

/** The platform an organization belongs to, or undefined when it does not exist. */
export async function findPlatformOfOrganization(db: Queryable, organizationId: string): Promise<string | undefined> {
  const r = await db.query<{ platform_id: string }>({
    name: 'organization-platform',
    text: 'SELECT platform_id FROM organizations WHERE id = $1',
    values: [organizationId],
  });
  return r.rows[0]?.platform_id;
}
