import { createHash } from 'node:crypto';
import type { Queryable } from './database.js';
import { newId } from './new-id.js';

/** Who did it: a key, or a background worker. */
export type AuditActor = { keyId: string; keyType: string } | { type: 'system' };

/** One entry to append to the audit log. */
export interface AuditEntry {
  platformId: string;
  organizationId: string;
  actor: AuditActor;
  action: string;
  resourceType: string;
  resourceId: string | null;
  requestId: string | null;
  before: unknown;
  after: unknown;
  timestamp: Date;
}

/** The hash of the chain's start, for an organization's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** Canonical JSON: object keys sorted, so the same content always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj).filter((k) => obj[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** The hash of one audit event given its predecessor's hash. */
export function auditHash(prevHash: string, e: { id: string } & AuditEntry): string {
  const body = canonicalJson({
    id: e.id, platformId: e.platformId, organizationId: e.organizationId, actor: e.actor, action: e.action,
    resourceType: e.resourceType, resourceId: e.resourceId, requestId: e.requestId, before: e.before ?? null,
    after: e.after ?? null, timestamp: e.timestamp.toISOString(),
  });
  return createHash('sha256').update(prevHash).update('\n').update(body).digest('hex');
}

/**
 * Appends an audit event inside the caller's transaction. Events of one organization form a hash chain;
 * a transaction-scoped advisory lock per organization keeps the chain linear under concurrency.
 */
export async function appendAudit(tx: Queryable, entry: AuditEntry): Promise<string> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`audit:${entry.organizationId}`]);
  const last = await tx.query<{ hash: string }>('SELECT hash FROM audit_events WHERE organization_id = $1 ORDER BY seq DESC LIMIT 1', [entry.organizationId]);
  const prevHash = last.rows[0]?.hash ?? GENESIS_HASH;
  const id = newId('aud', entry.timestamp.getTime());
  const hash = auditHash(prevHash, { id, ...entry });
  await tx.query(
    `INSERT INTO audit_events (id, platform_id, organization_id, actor, action, resource_type, resource_id, request_id, before, after, "timestamp", prev_hash, hash)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
    [id, entry.platformId, entry.organizationId, JSON.stringify(entry.actor), entry.action, entry.resourceType, entry.resourceId,
      entry.requestId, entry.before === undefined ? null : JSON.stringify(entry.before), entry.after === undefined ? null : JSON.stringify(entry.after),
      entry.timestamp, prevHash, hash],
  );
  return id;
}

/** A break found by verifyAuditChain. */
export interface AuditChainBreak {
  organizationId: string;
  id: string;
  reason: string;
}

/** Walks every organization's chain and reports events whose hash or link does not match. */
export async function verifyAuditChain(db: Queryable): Promise<{ checked: number; breaks: AuditChainBreak[] }> {
  const r = await db.query(`SELECT * FROM audit_events ORDER BY organization_id, seq`);
  const breaks: AuditChainBreak[] = [];
  let prevOrg = '';
  let prevHash = GENESIS_HASH;
  for (const row of r.rows) {
    if (row.organization_id !== prevOrg) { prevOrg = row.organization_id; prevHash = GENESIS_HASH; }
    if (row.prev_hash !== prevHash) breaks.push({ organizationId: row.organization_id, id: row.id, reason: 'prev_hash does not match the previous event' });
    const expected = auditHash(row.prev_hash, {
      id: row.id, platformId: row.platform_id, organizationId: row.organization_id, actor: row.actor, action: row.action,
      resourceType: row.resource_type, resourceId: row.resource_id, requestId: row.request_id, before: row.before, after: row.after,
      timestamp: row.timestamp,
    });
    if (expected !== row.hash) breaks.push({ organizationId: row.organization_id, id: row.id, reason: 'hash does not match the content' });
    prevHash = row.hash;
  }
  return { checked: r.rowCount ?? 0, breaks };
}
