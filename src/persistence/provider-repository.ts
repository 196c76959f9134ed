import type { Queryable } from './database.js';
import type { LicenseRecord } from '../domain/provider.js';

/** The stored provider fields kept in the `doc` column. */
export interface ProviderDoc {
  displayName: string;
  email: string | null;
  professionCode: string | null;
  specialtyCodes: string[];
  languageCodes: string[];
  modalityCodes: string[];
  serviceRegionCodes: string[];
  insurancePlanCodes: string[];
  ageGroupCodes: string[];
  licenseRecords: LicenseRecord[];
  acceptsNewClients: boolean | null;
  timezone: string | null;
  bio: string | null;
  username: string | null;
  location: string | null;
  panelCapacity: number | null;
  panelCurrentCount: number | null;
}

/** A provider as the API answers it. */
export interface ProviderView extends ProviderDoc {
  id: string;
  organizationId: string;
  externalId: string;
  status: 'active' | 'inactive' | 'suspended';
  searchable: boolean;
  profileVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** Maps a providers row to its answer shape. */
export function toProviderView(row: Record<string, any>): ProviderView {
  const d = row.doc as ProviderDoc;
  return {
    id: row.id,
    organizationId: row.organization_id,
    externalId: row.external_id,
    displayName: d.displayName,
    email: d.email ?? null,
    status: row.status,
    searchable: row.searchable,
    professionCode: d.professionCode ?? null,
    specialtyCodes: d.specialtyCodes ?? [],
    languageCodes: d.languageCodes ?? [],
    modalityCodes: d.modalityCodes ?? [],
    serviceRegionCodes: d.serviceRegionCodes ?? [],
    insurancePlanCodes: d.insurancePlanCodes ?? [],
    ageGroupCodes: d.ageGroupCodes ?? [],
    licenseRecords: d.licenseRecords ?? [],
    acceptsNewClients: d.acceptsNewClients ?? null,
    timezone: d.timezone ?? null,
    bio: d.bio ?? null,
    username: d.username ?? null,
    location: d.location ?? null,
    panelCapacity: d.panelCapacity ?? null,
    panelCurrentCount: d.panelCurrentCount ?? null,
    profileVersion: row.profile_version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Splits a view into the stored doc. */
export function providerDoc(v: ProviderDoc): ProviderDoc {
  return {
    displayName: v.displayName, email: v.email, professionCode: v.professionCode, specialtyCodes: v.specialtyCodes, languageCodes: v.languageCodes,
    modalityCodes: v.modalityCodes, serviceRegionCodes: v.serviceRegionCodes, insurancePlanCodes: v.insurancePlanCodes, ageGroupCodes: v.ageGroupCodes,
    licenseRecords: v.licenseRecords, acceptsNewClients: v.acceptsNewClients, timezone: v.timezone, bio: v.bio, username: v.username,
    location: v.location, panelCapacity: v.panelCapacity, panelCurrentCount: v.panelCurrentCount,
  };
}

/** Reads one provider row by id (any organization; callers check tenancy). */
export async function findProviderRow(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}) {
  const r = await db.query(`SELECT * FROM providers WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] as Record<string, any> | undefined;
}

/** Inserts a provider; returns the row, or undefined when the externalId exists in the organization. */
export async function insertProviderRow(tx: Queryable, p: { id: string; platformId: string; organizationId: string; externalId: string; status: string; searchable: boolean; doc: ProviderDoc; now: Date }) {
  const r = await tx.query(
    `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,1,$8,$8) ON CONFLICT (organization_id, external_id) DO NOTHING RETURNING *`,
    [p.id, p.platformId, p.organizationId, p.externalId, p.status, p.searchable, JSON.stringify(p.doc), p.now],
  );
  return r.rows[0] as Record<string, any> | undefined;
}

/** Writes a provider's new state and advances its profileVersion. */
export async function updateProviderRow(tx: Queryable, id: string, v: { externalId: string; status: string; searchable: boolean; doc: ProviderDoc; now: Date }) {
  const r = await tx.query(
    `UPDATE providers SET external_id = $2, status = $3, searchable = $4, doc = $5, profile_version = profile_version + 1, updated_at = $6 WHERE id = $1 RETURNING *`,
    [id, v.externalId, v.status, v.searchable, JSON.stringify(v.doc), v.now],
  );
  return r.rows[0] as Record<string, any>;
}
