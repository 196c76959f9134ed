import type { Queryable } from './database.js';

/** An organization row mapped to its answer shape. */
export interface OrganizationRecord {
  id: string;
  platformId: string;
  externalId: string;
  name: string;
  settings: { plan: 'free' | 'launch' | 'scale' | 'enterprise'; allowUnverifiable: boolean; timezone: string | null };
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
    settings: { plan: s.plan ?? 'free', allowUnverifiable: s.allowUnverifiable ?? false, timezone: s.timezone ?? null },
    providerGraphVersion: Number(row.graph_version),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Reads one organization by id, or undefined. */
export async function findOrganization(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}): Promise<OrganizationRecord | undefined> {
  const r = await db.query(`SELECT * FROM organizations WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ? toOrganization(r.rows[0]) : undefined;
}

/** Advances an organization's provider graph version by `changes` (one per change) and returns the new value. */
export async function bumpGraphVersion(tx: Queryable, organizationId: string, changes = 1): Promise<number> {
  const r = await tx.query<{ graph_version: number }>('UPDATE organizations SET graph_version = graph_version + $2 WHERE id = $1 RETURNING graph_version', [organizationId, changes]);
  return Number(r.rows[0]?.graph_version ?? 0);
}

/** Reads the default organization of a platform (where its platform keys act without Service-Organization-Id). */
export async function findDefaultOrganizationId(db: Queryable, platformId: string): Promise<string | undefined> {
  const r = await db.query('SELECT default_organization_id FROM platforms WHERE id = $1', [platformId]);
  return (r.rows[0] as { default_organization_id: string } | undefined)?.default_organization_id;
}
