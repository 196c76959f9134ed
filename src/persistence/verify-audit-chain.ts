import { auditEntryOfRow, auditHash, GENESIS_HASH } from './audit-log.js';
import type { Queryable } from './database.js';

/** A break found by verifyAuditChain. */
export interface AuditChainBreak {
  organizationId: string;
  /** The event the break is about. */
  id: string;
  reason: string;
}

/** What verifyAuditChain found. */
export interface AuditChainReport {
  /** Events read (linked or not). */
  checked: number;
  linked: number;
  /** Events not linked yet because the sequencer has not reached them: not a break. */
  pending: number;
  breaks: AuditChainBreak[];
}

/** Compares two (txid, seq) positions given as decimal xid8 strings and seq numbers. */
function compareTxSeq(a: { txid: string; seq: number }, b: { txid: string; seq: number }): number {
  const d = BigInt(a.txid) - BigInt(b.txid);
  return d !== 0n ? (d < 0n ? -1 : 1) : a.seq - b.seq;
}

/**
 * Checks every organization's audit chain from one snapshot: links in position order from 1 without a gap, each
 * link's prev_hash equal to its predecessor's hash, each hash equal to sha256(prev || '\n' || the event as stored),
 * each link pointing at an event of its organization, and each event linked exactly once. An event without a link
 * is pending while the sequencer has not reached it (it comes after the sequencer's cursor); one the sequencer has
 * passed, one from before migration 0007, or one whose txid no transaction can have had, is a break.
 */
export async function verifyAuditChain(db: Queryable): Promise<AuditChainReport> {
  // One statement, so the links, the events and the sequencer's cursor are read from the same snapshot.
  const r = await db.query(`
    WITH snap AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax),
    cur AS (SELECT l.txid::text AS txid, l.event_seq FROM audit_chain l WHERE l.txid IS NOT NULL ORDER BY l.txid DESC, l.event_seq DESC LIMIT 1)
    SELECT c.organization_id AS link_org, c.position, c.event_seq AS link_seq, c.event_id AS link_event_id, c.txid::text AS link_txid, c.prev_hash, c.hash,
      e.seq, e.id, e.platform_id, e.organization_id, e.actor, e.action, e.resource_type, e.resource_id, e.request_id, e.before, e.after, e."timestamp", e.txid::text AS txid,
      snap.xmax, cur.txid AS cursor_txid, cur.event_seq AS cursor_seq
    FROM audit_chain c FULL JOIN audit_events e ON e.id = c.event_id
    CROSS JOIN snap LEFT JOIN cur ON true
    ORDER BY coalesce(c.organization_id, e.organization_id), c.position NULLS LAST, e.seq`);
  return checkRows(r.rows, () => ({ position: 0, hash: GENESIS_HASH }));
}

/** What verifyOrganizationAuditChain found, and which part of the chain it covered. */
export interface OrganizationAuditChainReport extends AuditChainReport {
  /** First and last chain positions verified (0 and 0 for an empty chain). */
  fromPosition: number;
  toPosition: number;
  /** True when the window reached position 1: the whole chain was verified. */
  complete: boolean;
}

/**
 * Checks the latest `latest` links of one organization's chain as verifyAuditChain does, anchored on the link just
 * before them (its hash is trusted as the window's genesis), and the organization's latest `latest` events for ones
 * not linked. Bounded work, for an API call: at most `latest` links and 2 × `latest` events are read, from one
 * statement (one snapshot), on the chain's primary key and the events' organization index.
 */
export async function verifyOrganizationAuditChain(
  db: Queryable,
  organizationId: string,
  opts: { latest: number },
): Promise<OrganizationAuditChainReport> {
  const r = await db.query({
    name: 'verify-organization-audit-chain',
    text: `
    WITH snap AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax),
    cur AS (SELECT l.txid::text AS txid, l.event_seq FROM audit_chain l WHERE l.txid IS NOT NULL ORDER BY l.txid DESC, l.event_seq DESC LIMIT 1),
    head AS (SELECT coalesce(max(position), 0) AS top FROM audit_chain WHERE organization_id = $1),
    anchor AS (SELECT a.position, a.hash FROM audit_chain a, head WHERE a.organization_id = $1 AND a.position <= head.top - $2 ORDER BY a.position DESC LIMIT 1),
    links AS (SELECT c.* FROM audit_chain c, head WHERE c.organization_id = $1 AND c.position > head.top - $2),
    recent AS (SELECT e.* FROM audit_events e WHERE e.organization_id = $1 ORDER BY e.seq DESC LIMIT $2),
    rows AS (
      SELECT c.organization_id AS link_org, c.position, c.event_seq AS link_seq, c.event_id AS link_event_id, c.txid::text AS link_txid, c.prev_hash, c.hash,
        e.seq, e.id, e.platform_id, e.organization_id, e.actor, e.action, e.resource_type, e.resource_id, e.request_id, e.before, e.after, e."timestamp", e.txid::text AS txid
      FROM links c LEFT JOIN audit_events e ON e.id = c.event_id
      UNION ALL
      SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        e.seq, e.id, e.platform_id, e.organization_id, e.actor, e.action, e.resource_type, e.resource_id, e.request_id, e.before, e.after, e."timestamp", e.txid::text
      FROM recent e WHERE NOT EXISTS (SELECT 1 FROM audit_chain l WHERE l.event_id = e.id))
    SELECT rows.*, snap.xmax, cur.txid AS cursor_txid, cur.event_seq AS cursor_seq, head.top, anchor.position AS anchor_position, anchor.hash AS anchor_hash
    FROM rows CROSS JOIN snap CROSS JOIN head LEFT JOIN cur ON true LEFT JOIN anchor ON true
    ORDER BY rows.position NULLS LAST, rows.seq`,
    values: [organizationId, opts.latest],
  });
  const first = r.rows[0];
  const anchor =
    first?.anchor_position != null
      ? { position: Number(first.anchor_position), hash: first.anchor_hash as string }
      : { position: 0, hash: GENESIS_HASH };
  const report = checkRows(r.rows, () => anchor);
  const top = Number(first?.top ?? 0);
  const fromPosition = top === 0 ? 0 : Math.max(1, top - opts.latest + 1);
  return { ...report, fromPosition, toPosition: top, complete: fromPosition <= 1 };
}

/**
 * Walks links and unlinked events ordered by organization, then position (unlinked events last, by seq), as both
 * verifiers read them; `start` gives the position and hash the first link of an organization must follow.
 */
function checkRows(rows: Record<string, any>[], start: () => { position: number; hash: string }): AuditChainReport {
  const breaks: AuditChainBreak[] = [];
  const seen = new Set<string>();
  let checked = 0;
  let linked = 0;
  let pending = 0;
  let org = '';
  let prev = { position: 0, hash: GENESIS_HASH };
  for (const row of rows) {
    const cursor = { txid: row.cursor_txid ?? '0', seq: Number(row.cursor_seq ?? 0) };
    if (row.id !== null) checked++;
    if (row.link_event_id === null) {
      // An event without a link.
      const brk = (reason: string) => breaks.push({ organizationId: row.organization_id, id: row.id, reason });
      if (row.txid === null) brk('event from before the sequencer is not linked');
      else if (BigInt(row.txid) >= BigInt(row.xmax)) brk('event carries the txid of a transaction that has not run');
      else if (compareTxSeq({ txid: row.txid, seq: Number(row.seq) }, cursor) <= 0)
        brk('event was passed over by the sequencer: not linked');
      else pending++;
      continue;
    }
    const orgId = row.link_org as string;
    if (orgId !== org) {
      org = orgId;
      prev = start();
    }
    const eventId = row.link_event_id as string;
    const brk = (reason: string) => breaks.push({ organizationId: orgId, id: eventId, reason });
    if (Number(row.position) !== prev.position + 1)
      brk(`link at position ${row.position} follows position ${prev.position}: links are missing`);
    if (row.prev_hash !== prev.hash) brk('prev_hash does not match the previous link');
    if (seen.has(eventId)) brk('event is linked more than once');
    seen.add(eventId);
    if (row.id === null) {
      brk('link points to an event that does not exist');
    } else {
      linked++;
      if (row.organization_id !== orgId || Number(row.seq) !== Number(row.link_seq) || row.txid !== row.link_txid)
        brk('link does not match its event (organization, seq or txid)');
      if (auditHash(row.prev_hash, auditEntryOfRow(row)) !== row.hash) brk('hash does not match the content');
    }
    prev = { position: Number(row.position), hash: row.hash };
  }
  return { checked, linked, pending, breaks };
}
