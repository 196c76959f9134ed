import { createHash } from 'node:crypto';
import type { Queryable } from './database.js';
import { noteAuditAppend } from './audit-witness.js';
import { newId } from './new-id.js';
import { keysetPage } from './keyset-page.js';

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
  return `{${Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(',')}}`;
}

/** The canonical JSON an audit event's hash covers (everything but the chain links). */
export function auditBody(e: { id: string } & AuditEntry): string {
  return canonicalJson({
    id: e.id,
    platformId: e.platformId,
    organizationId: e.organizationId,
    actor: e.actor,
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    requestId: e.requestId,
    before: e.before ?? null,
    after: e.after ?? null,
    timestamp: e.timestamp.toISOString(),
  });
}

/** The hash of one audit event's link given its predecessor's hash: sha256(prev || '\n' || auditBody). */
export function auditHash(prevHash: string, e: { id: string } & AuditEntry): string {
  return createHash('sha256').update(prevHash).update('\n').update(auditBody(e)).digest('hex');
}

/** An audit event as read back from audit_events, in the AuditEntry shape the hash covers. */
export function auditEntryOfRow(row: Record<string, any>): { id: string } & AuditEntry {
  return {
    id: row.id,
    platformId: row.platform_id,
    organizationId: row.organization_id,
    actor: row.actor,
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    requestId: row.request_id,
    before: row.before,
    after: row.after,
    timestamp: row.timestamp,
  };
}

/** Columns of an audit insert; seq and txid come from their defaults, the chain link comes later (audit-sequencer). */
export const AUDIT_INSERT_COLUMNS =
  'id, platform_id, organization_id, actor, action, resource_type, resource_id, request_id, before, after, "timestamp"';

const AUDIT_PARAM_CASTS = ['', '', '', '::jsonb', '', '', '', '', '::jsonb', '::jsonb', '::timestamptz'];

/** The select list of one audit insert whose 11 parameters start at `$first` (for INSERT ... SELECT in a CTE). */
export function auditSelectList(first: number): string {
  return AUDIT_PARAM_CASTS.map((cast, i) => `$${first + i}${cast}`).join(', ');
}

/** The 11 parameters of one audit insert (in AUDIT_INSERT_COLUMNS order) and the new event's id (noted on a witnessing actor). */
export function auditInsertParams(entry: AuditEntry): { id: string; params: unknown[] } {
  const id = newId('aud', entry.timestamp.getTime());
  noteAuditAppend(entry.actor, id);
  return {
    id,
    params: [
      id,
      entry.platformId,
      entry.organizationId,
      JSON.stringify(entry.actor),
      entry.action,
      entry.resourceType,
      entry.resourceId,
      entry.requestId,
      entry.before === undefined ? null : JSON.stringify(entry.before),
      entry.after === undefined ? null : JSON.stringify(entry.after),
      entry.timestamp,
    ],
  };
}

/**
 * Appends an audit event inside the caller's transaction with one INSERT: no trigger, no lock, so appends of one
 * organization never wait for each other. The event becomes part of its organization's hash chain once its
 * transaction has committed and the sequencer has linked it (linkAuditChain).
 */
export async function appendAudit(tx: Queryable, entry: AuditEntry): Promise<string> {
  const { id, params } = auditInsertParams(entry);
  await tx.query({
    name: 'append-audit',
    text: `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
    values: params,
  });
  return id;
}

/** An audit event whose id was chosen before it was stored, and the events whose presence makes it redundant. */
export interface PreparedAuditEvent {
  id: string;
  entry: AuditEntry;
  /** Store this event only if none of these events exists (a write's own event already recorded the request). */
  unlessEventIds?: readonly string[];
}

/**
 * Stores prepared audit events in one multi-row INSERT. Storing the same events again is harmless (their ids
 * are taken, ON CONFLICT DO NOTHING), so a batch delivered twice is stored once. Returns how many were new.
 */
export async function insertAuditEvents(db: Queryable, events: readonly PreparedAuditEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const rows = events.map(({ id, entry: e, unlessEventIds }) => ({
    id,
    platform_id: e.platformId,
    organization_id: e.organizationId,
    actor: e.actor,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    request_id: e.requestId,
    before: e.before ?? null,
    after: e.after ?? null,
    timestamp: e.timestamp.toISOString(),
    unless: unlessEventIds ?? [],
  }));
  const r = await db.query({
    name: 'insert-audit-events',
    text: `INSERT INTO audit_events (${AUDIT_INSERT_COLUMNS})
      SELECT x.id, x.platform_id, x.organization_id, x.actor, x.action, x.resource_type, x.resource_id, x.request_id, x.before, x.after, x."timestamp"
      FROM jsonb_to_recordset($1::jsonb) AS x(id text, platform_id text, organization_id text, actor jsonb, action text, resource_type text,
        resource_id text, request_id text, before jsonb, after jsonb, "timestamp" timestamptz, unless text[])
      WHERE NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.id = ANY (x.unless))
      ON CONFLICT (id) DO NOTHING`,
    values: [JSON.stringify(rows)],
  });
  return r.rowCount ?? 0;
}

/** Filters of an audit event list; always one organization's. */
export interface AuditEventFilter {
  organizationId: string;
  action?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
}

/**
 * A place in an audit list: the ("timestamp", id) of the last event of a page (the timestamp as UTC text with
 * microseconds, exactly as stored), or the seq of that event in a cursor issued before the list was ordered by time.
 */
export type AuditListPosition = { timestamp: string; id: string } | { seq: number };

/** An audit_events row as listed, with its place in the list. */
export type ListedAuditRow = Record<string, any> & { position: { timestamp: string; id: string } };

/**
 * Lists an organization's audit events newest first by ("timestamp", id) (CONTRACT part 7: request time, ties by id)
 * after `after`, at most `limit` rows, on the (organization_id, "timestamp", id) index.
 */
export async function listAuditEventRows(
  db: Queryable,
  f: AuditEventFilter,
  page: { after?: AuditListPosition | undefined; limit: number },
): Promise<ListedAuditRow[]> {
  const args: unknown[] = [f.organizationId];
  const param = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  const where = ['organization_id = $1'];
  if (f.action !== undefined) where.push(`action = ${param(f.action)}`);
  if (f.resourceType !== undefined) where.push(`resource_type = ${param(f.resourceType)}`);
  if (f.resourceId !== undefined) where.push(`resource_id = ${param(f.resourceId)}`);
  const after = page.after;
  const orderLimit = keysetPage(
    { where, args },
    {
      columns: ['"timestamp"', 'id'],
      order: 'desc',
      after:
        after === undefined
          ? undefined
          : 'seq' in after
            ? (p) =>
                `(SELECT a."timestamp", a.id FROM audit_events a WHERE a.organization_id = $1 AND a.seq = ${p(after.seq)})`
            : (p) => `(${p(after.timestamp)}::timestamp AT TIME ZONE 'UTC', ${p(after.id)})`,
      limit: page.limit,
    },
  );
  const r = await db.query(
    `SELECT *, to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position_timestamp
      FROM audit_events WHERE ${where.join(' AND ')} ${orderLimit}`,
    args,
  );
  return r.rows.map((row) => {
    const { position_timestamp: timestamp, ...rest } = row as Record<string, any>;
    return { ...rest, position: { timestamp: timestamp as string, id: rest.id as string } };
  });
}
