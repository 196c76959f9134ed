import type { Queryable } from './database.js';
import type { LicenseRecord } from '../domain/provider.js';
import { keysetPage } from './keyset-page.js';

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

/** How an absent doc field reads: a `list` as [], a `nullable` field as null; `required` fields are always stored. */
type DocFieldKind<T> = T extends readonly unknown[] ? 'list' : null extends T ? 'nullable' : 'required';

/**
 * Every field of a provider's stored `doc`, in answer order, with how it reads when absent: the one runtime list of
 * provider fields, from which the view, the writers (create, patch, change check) and the domain mapping derive.
 * The compiler holds it to {@link ProviderDoc}: a field missing here, extra, or of the wrong kind fails the type-check.
 */
export const PROVIDER_DOC_FIELDS = {
  displayName: 'required',
  email: 'nullable',
  professionCode: 'nullable',
  specialtyCodes: 'list',
  languageCodes: 'list',
  modalityCodes: 'list',
  serviceRegionCodes: 'list',
  insurancePlanCodes: 'list',
  ageGroupCodes: 'list',
  licenseRecords: 'list',
  acceptsNewClients: 'nullable',
  timezone: 'nullable',
  bio: 'nullable',
  username: 'nullable',
  location: 'nullable',
  panelCapacity: 'nullable',
  panelCurrentCount: 'nullable',
} as const satisfies { [K in keyof ProviderDoc]-?: DocFieldKind<ProviderDoc[K]> };

/** The names of a provider's doc fields, in answer order. */
export const PROVIDER_DOC_KEYS = Object.keys(PROVIDER_DOC_FIELDS) as (keyof ProviderDoc)[];

/** The doc fields that read as null when absent (the domain type leaves them out instead). */
export const NULLABLE_PROVIDER_DOC_KEYS = PROVIDER_DOC_KEYS.filter((k) => PROVIDER_DOC_FIELDS[k] === 'nullable');

type RawProviderDoc = { readonly [K in keyof ProviderDoc]?: ProviderDoc[K] | null | undefined };

const DOC_KEYS = PROVIDER_DOC_KEYS as readonly string[];
const DOC_LIST = PROVIDER_DOC_KEYS.map((k) => PROVIDER_DOC_FIELDS[k] === 'list');
const DOC_NULLABLE = PROVIDER_DOC_KEYS.map((k) => PROVIDER_DOC_FIELDS[k] === 'nullable');

/** Writes every doc field of `raw` into `target`, an absent list as [] and an absent optional field as null. */
function assignProviderDoc(target: Record<string, unknown>, raw: RawProviderDoc): void {
  const from = raw as Readonly<Record<string, unknown>>;
  // Indexed loop over precomputed kinds: this runs for every provider of a graph load.
  for (let i = 0; i < DOC_KEYS.length; i++) {
    const k = DOC_KEYS[i]!;
    const v = from[k];
    target[k] = v ?? (DOC_LIST[i] ? [] : DOC_NULLABLE[i] ? null : v);
  }
}

/** A doc with every field present, from a stored doc or a validated body (absent: lists [], optional fields null). */
export function readProviderDoc(raw: RawProviderDoc): ProviderDoc {
  const doc: Record<string, unknown> = {};
  assignProviderDoc(doc, raw);
  return doc as unknown as ProviderDoc;
}

/** Maps a providers row to its answer shape. */
export function toProviderView(row: Record<string, any>): ProviderView {
  // The placeholders fix the answer's key order (displayName and email before status and searchable); the doc fills them.
  const view: Record<string, unknown> = {
    id: row.id,
    organizationId: row.organization_id,
    externalId: row.external_id,
    displayName: undefined,
    email: null,
    status: row.status,
    searchable: row.searchable,
  };
  assignProviderDoc(view, row.doc);
  view.profileVersion = row.profile_version;
  view.createdAt = row.created_at.toISOString();
  view.updatedAt = row.updated_at.toISOString();
  return view as unknown as ProviderView;
}

/** Splits a view into the stored doc. */
export function providerDoc(v: ProviderDoc): ProviderDoc {
  const doc: Record<string, unknown> = {};
  for (const k of PROVIDER_DOC_KEYS) doc[k] = v[k];
  return doc as unknown as ProviderDoc;
}

/** Reads one provider row by id (any organization; callers check tenancy). */
export async function findProviderRow(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}) {
  const r = await db.query(`SELECT * FROM providers WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] as Record<string, any> | undefined;
}

/** Inserts a provider; returns the row, or undefined when the externalId exists in the organization. */
export async function insertProviderRow(
  tx: Queryable,
  p: {
    id: string;
    platformId: string;
    organizationId: string;
    externalId: string;
    status: string;
    searchable: boolean;
    doc: ProviderDoc;
    now: Date;
  },
) {
  const r = await tx.query(
    `INSERT INTO providers (id, platform_id, organization_id, external_id, status, searchable, doc, profile_version, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,1,$8,$8) ON CONFLICT (organization_id, external_id) DO NOTHING RETURNING *`,
    [p.id, p.platformId, p.organizationId, p.externalId, p.status, p.searchable, JSON.stringify(p.doc), p.now],
  );
  return r.rows[0] as Record<string, any> | undefined;
}

/** Writes a provider's new state and advances its profileVersion. */
export async function updateProviderRow(
  tx: Queryable,
  id: string,
  v: { externalId: string; status: string; searchable: boolean; doc: ProviderDoc; now: Date },
) {
  const r = await tx.query(
    `UPDATE providers SET external_id = $2, status = $3, searchable = $4, doc = $5, profile_version = profile_version + 1, updated_at = $6 WHERE id = $1 RETURNING *`,
    [id, v.externalId, v.status, v.searchable, JSON.stringify(v.doc), v.now],
  );
  return r.rows[0] as Record<string, any>;
}

/**
 * Reads and locks (`FOR UPDATE`, in id order) the provider rows of an organization that an import job reads: those whose
 * externalId is among `externalIds` (the job's rows), and with `deactivatingOthers` also every other one that
 * deactivating would change (not both inactive and unsearchable yet). The organization's other rows are neither read
 * nor locked: a job of a few hundred rows in an organization of 100,000 providers reads a few hundred, and REST edits of
 * providers it does not touch do not wait for it.
 */
export async function lockImportProviderRows(
  tx: Queryable,
  organizationId: string,
  externalIds: readonly string[],
  deactivatingOthers: boolean,
): Promise<Record<string, any>[]> {
  const others = deactivatingOthers ? ` OR NOT (status = 'inactive' AND NOT searchable)` : '';
  return (
    await tx.query(
      `SELECT * FROM providers WHERE organization_id = $1 AND (external_id = ANY($2::text[])${others})
       ORDER BY id FOR UPDATE`,
      [organizationId, externalIds],
    )
  ).rows;
}

/** Filters of a provider list; always one organization's (code filters: the provider's list contains the code). */
export interface ProviderFilter {
  organizationId: string;
  status?: string | undefined;
  searchable?: boolean | undefined;
  externalId?: string | undefined;
  specialtyCode?: string | undefined;
  languageCode?: string | undefined;
  modalityCode?: string | undefined;
  professionCode?: string | undefined;
  /** A substring of the location, matched case-insensitively. */
  location?: string | undefined;
}

/** Builds the WHERE clause of a provider list from its filters. */
function providerWhere(f: ProviderFilter) {
  const where = ['organization_id = $1'];
  const args: unknown[] = [f.organizationId];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.status) add('status = ?', f.status);
  if (f.searchable !== undefined) add('searchable = ?', f.searchable);
  if (f.externalId) add('external_id = ?', f.externalId);
  const contains = (field: string, v: string | undefined) => {
    if (v) add('doc @> ?::jsonb', JSON.stringify({ [field]: [v] }));
  };
  contains('specialtyCodes', f.specialtyCode);
  contains('languageCodes', f.languageCode);
  contains('modalityCodes', f.modalityCode);
  if (f.professionCode) add('doc @> ?::jsonb', JSON.stringify({ professionCode: f.professionCode }));
  if (f.location) add(`doc->>'location' ILIKE ?`, `%${f.location.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return { where, args };
}

/** Counts an organization's providers matching a filter. */
export async function countProviders(db: Queryable, f: ProviderFilter): Promise<number> {
  const { where, args } = providerWhere(f);
  return Number((await db.query(`SELECT count(*) AS n FROM providers WHERE ${where.join(' AND ')}`, args)).rows[0].n);
}

/** Lists provider rows matching a filter in id order after `after`, at most `limit` rows. */
export async function listProviderRows(
  db: Queryable,
  f: ProviderFilter,
  page: { after?: string | undefined; limit: number },
): Promise<Record<string, any>[]> {
  const { where, args } = providerWhere(f);
  const orderLimit = keysetPage(
    { where, args },
    { columns: ['id'], order: 'asc', after: page.after ? [page.after] : undefined, limit: page.limit },
  );
  return (await db.query(`SELECT * FROM providers WHERE ${where.join(' AND ')} ${orderLimit}`, args)).rows;
}

/** Whether a provider of the organization already has this externalId. */
export async function externalIdTaken(tx: Queryable, organizationId: string, externalId: string): Promise<boolean> {
  const clash = await tx.query('SELECT 1 FROM providers WHERE organization_id = $1 AND external_id = $2', [
    organizationId,
    externalId,
  ]);
  return Boolean(clash.rowCount);
}
