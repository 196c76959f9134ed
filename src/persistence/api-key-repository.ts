import type { Queryable } from './database.js';
import { newId } from './new-id.js';
import { generateApiKey, hashApiKey, keyHint } from '../domain/api-key-secret.js';
import type { KeyType } from '../domain/key-type.js';
import { keysetPage } from './keyset-page.js';

/** An API key as listed; never the secret. */
export interface ApiKeyRecord {
  id: string;
  type: KeyType;
  organizationId: string;
  name: string;
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** Maps a row to an ApiKeyRecord. */
export function toApiKey(row: Record<string, any>): ApiKeyRecord {
  return {
    id: row.id,
    type: row.type,
    organizationId: row.organization_id,
    name: row.name,
    hint: row.key_hint,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** Stores a key (only its hash) and returns the record plus the secret, shown this once. */
export async function insertApiKey(
  tx: Queryable,
  k: {
    platformId: string;
    organizationId: string;
    type: KeyType;
    name: string;
    expiresAt?: Date | null;
    now: Date;
    secret?: string;
  },
): Promise<{ record: ApiKeyRecord; key: string }> {
  const key = k.secret ?? generateApiKey(k.type);
  const r = await tx.query(
    `INSERT INTO api_keys (id, platform_id, organization_id, type, name, key_hash, key_hint, created_at, expires_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) RETURNING *`,
    [
      newId('key', k.now.getTime()),
      k.platformId,
      k.organizationId,
      k.type,
      k.name,
      hashApiKey(key),
      keyHint(key),
      k.now,
      k.expiresAt ?? null,
    ],
  );
  return { record: toApiKey(r.rows[0]), key };
}

/** Creates a platform account with its default organization; returns their ids. */
export async function insertPlatform(
  tx: Queryable,
  p: { name: string; now: Date },
): Promise<{ platformId: string; organizationId: string }> {
  const platformId = newId('plt', p.now.getTime());
  const organizationId = newId('org', p.now.getTime());
  // The platform row references its default organization and vice versa; insert the platform first with the id chosen ahead.
  await tx.query('INSERT INTO platforms (id, name, default_organization_id, created_at) VALUES ($1,$2,$3,$4)', [
    platformId,
    p.name,
    organizationId,
    p.now,
  ]);
  await tx.query(
    `INSERT INTO organizations (id, platform_id, external_id, name, settings, created_at, updated_at) VALUES ($1,$2,'default',$3,$4,$5,$5)`,
    [
      organizationId,
      platformId,
      `${p.name} (default)`,
      JSON.stringify({ plan: 'free', allowUnverifiable: false, timezone: null }),
      p.now,
    ],
  );
  return { platformId, organizationId };
}

/** Reads one key by id with its platform (any platform; callers check tenancy), or undefined. */
export async function findApiKey(
  db: Queryable,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<{ platformId: string; record: ApiKeyRecord } | undefined> {
  const r = await db.query(`SELECT * FROM api_keys WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = r.rows[0];
  return row ? { platformId: row.platform_id as string, record: toApiKey(row) } : undefined;
}

/** Lists a platform's keys in id order after `after`, at most `limit` rows. */
export async function listApiKeys(
  db: Queryable,
  platformId: string,
  page: { after: string; limit: number },
): Promise<ApiKeyRecord[]> {
  const query = { where: ['platform_id = $1'], args: [platformId] as unknown[] };
  const orderLimit = keysetPage(query, { columns: ['id'], order: 'asc', after: [page.after], limit: page.limit });
  const r = await db.query(`SELECT * FROM api_keys WHERE ${query.where.join(' AND ')} ${orderLimit}`, query.args);
  return r.rows.map(toApiKey);
}

/** Marks a key revoked at `revokedAt`; returns it. */
export async function revokeApiKey(tx: Queryable, id: string, revokedAt: Date): Promise<ApiKeyRecord> {
  const r = await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 RETURNING *', [id, revokedAt]);
  return toApiKey(r.rows[0]);
}

/** An API key row as authentication needs it. */
export interface KeyRow {
  id: string;
  platform_id: string;
  organization_id: string;
  type: KeyType;
  key_hash: Buffer;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** Reads the key stored with this hash (authentication), or undefined. */
export async function findKeyByHash(db: Queryable, hash: Buffer): Promise<KeyRow | undefined> {
  const r = await db.query<KeyRow>({
    name: 'api-key-by-hash',
    text: 'SELECT id, platform_id, organization_id, type, key_hash, expires_at, revoked_at FROM api_keys WHERE key_hash = $1',
    values: [hash],
  });
  return r.rows[0];
}

/** Whether each of these keys may still be used: its revocation and expiry (a key not found has no row). */
export async function findKeyValidity(
  db: Queryable,
  ids: readonly string[],
): Promise<Pick<KeyRow, 'id' | 'revoked_at' | 'expires_at'>[]> {
  const r = await db.query<Pick<KeyRow, 'id' | 'revoked_at' | 'expires_at'>>({
    name: 'api-key-validity',
    text: 'SELECT id, revoked_at, expires_at FROM api_keys WHERE id = ANY($1::text[])',
    values: [ids],
  });
  return r.rows;
}

/** The platform that holds the key stored with this hash, or undefined. */
export async function findPlatformOfKeyHash(tx: Queryable, hash: Buffer): Promise<string | undefined> {
  const existing = await tx.query('SELECT platform_id FROM api_keys WHERE key_hash = $1', [hash]);
  return existing.rows[0]?.platform_id as string | undefined;
}

/** Whether any platform account exists. */
export async function anyPlatformExists(tx: Queryable): Promise<boolean> {
  const any = await tx.query('SELECT 1 FROM platforms LIMIT 1');
  return Boolean(any.rowCount);
}

/** Takes the transaction-scoped advisory lock `lockId` (serializes start-up bootstraps of every process). */
export async function lockBootstrap(tx: Queryable, lockId: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [lockId]);
}
