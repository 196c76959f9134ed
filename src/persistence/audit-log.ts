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

/** The canonical JSON an audit event's hash covers (everything but the chain links). */
export function auditBody(e: { id: string } & AuditEntry): string {
  return canonicalJson({
    id: e.id, platformId: e.platformId, organizationId: e.organizationId, actor: e.actor, action: e.action,
    resourceType: e.resourceType, resourceId: e.resourceId, requestId: e.requestId, before: e.before ?? null,
    after: e.after ?? null, timestamp: e.timestamp.toISOString(),
  });
}

/** The hash of one audit event given its predecessor's hash (the chain trigger of migration 0003 computes the same). */
export function auditHash(prevHash: string, e: { id: string } & AuditEntry): string {
  return createHash('sha256').update(prevHash).update('\n').update(auditBody(e)).digest('hex');
}

/** Columns of an audit insert; the chain trigger fills seq, prev_hash and hash from chain_body. */
export const AUDIT_INSERT_COLUMNS = 'id, platform_id, organization_id, actor, action, resource_type, resource_id, request_id, before, after, "timestamp", chain_body';

/** The select list of one audit insert whose 12 parameters start at `$first` (for INSERT ... SELECT in a CTE). */
export function auditSelectList(first: number): string {
  const casts = ['', '', '', '::jsonb', '', '', '', '', '::jsonb', '::jsonb', '::timestamptz', ''];
  return casts.map((cast, i) => `$${first + i}${cast}`).join(', ');
}

/** The 12 parameters of one audit insert (in AUDIT_INSERT_COLUMNS order) and the new event's id. */
export function auditInsertParams(entry: AuditEntry): { id: string; params: unknown[] } {
  const id = newId('aud', entry.timestamp.getTime());
  return {
    id,
    params: [id, entry.platformId, entry.organizationId, JSON.stringify(entry.actor), entry.action, entry.resourceType, entry.resourceId,
      entry.requestId, entry.before === undefined ? null : JSON.stringify(entry.before), entry.after === undefined ? null : JSON.stringify(entry.after),
      entry.timestamp, auditBody({ id, ...entry })],
  };
}

/**
 * Appends an audit event inside the caller's transaction with one INSERT. Events of one organization form a hash
 * chain; the chain trigger extends it under a row lock on the organization's chain head (held to commit), so the
 * chain stays linear under concurrency and across processes.
 */
export async function appendAudit(tx: Queryable, entry: AuditEntry): Promise<string> {
  const { id, params } = auditInsertParams(entry);
  await tx.query({ name: 'append-audit', text: `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`, values: params });
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
