import type { Queryable } from './database.js';
import { LIVE_SERVICE_SQL } from './service-repository.js';

/** The rows an organization's provider graph is built from. */
export interface OrganizationGraphRows {
  providers: Record<string, any>[];
  services: Record<string, any>[];
  /** Calendar connections, newest first. */
  schedules: Record<string, any>[];
}

/** Reads an organization's whole graph in three queries (never one per provider). */
export async function readOrganizationGraphRows(db: Queryable, organizationId: string): Promise<OrganizationGraphRows> {
  const [p, s, c] = await Promise.all([
    db.query('SELECT * FROM providers WHERE organization_id = $1 ORDER BY id', [organizationId]),
    db.query(`SELECT * FROM services WHERE organization_id = $1 AND ${LIVE_SERVICE_SQL} ORDER BY id`, [organizationId]),
    db.query('SELECT * FROM calendar_connections WHERE organization_id = $1 ORDER BY id DESC', [organizationId]),
  ]);
  return { providers: p.rows, services: s.rows, schedules: c.rows };
}
