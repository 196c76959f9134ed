import { setTimeout as sleep } from 'node:timers/promises';
import { auditEntryOfRow, auditHash, GENESIS_HASH } from './audit-log.js';
import type { Database, Queryable } from './database.js';

// Any fixed number works; it only has to be the same in every process (the migration lock is 7_245_001).
const SEQUENCER_LOCK_ID = 7_245_002;

/** What one linking pass did. */
export interface LinkPass {
  /** False when another process held the sequencer lock (that process links; this pass did nothing). */
  locked: boolean;
  linked: number;
  /** True when the pass linked every event that was final when it looked (fewer than a batch were waiting). */
  caughtUp: boolean;
  /** Every transaction with an id below this had finished when the pass looked (a decimal xid8). */
  horizon: string | undefined;
}

/** The (txid, seq) of the last event the sequencer linked: it takes events strictly after it. */
export interface ChainCursor {
  txid: string;
  seq: number;
}

/** Reads the sequencer's cursor; events linked by migration 0007 (txid NULL) come before every cursor. */
export async function readChainCursor(db: Queryable): Promise<ChainCursor> {
  const r = await db.query({
    name: 'audit-chain-cursor',
    // Ordered by the qualified column: a bare `txid` would name the text output column and sort "999" after "1000".
    text: 'SELECT c.txid::text AS txid, c.event_seq FROM audit_chain c WHERE c.txid IS NOT NULL ORDER BY c.txid DESC, c.event_seq DESC LIMIT 1',
  });
  const row = r.rows[0];
  return row ? { txid: row.txid, seq: Number(row.event_seq) } : { txid: '0', seq: 0 };
}

/**
 * Links the next batch of committed audit events into their organizations' hash chains, in one transaction
 * guarded by a try-lock, so any number of processes may call it and one links at a time.
 *
 * Why (txid, seq) order after the cursor and below the horizon is complete: the horizon is the xmin of a snapshot,
 * so every transaction with an id below it has finished and no event with such a txid can appear later (an
 * event's txid is the id of the transaction that inserted it). The horizon never moves back, and each pass takes
 * the final events in (txid, seq) order after the last one linked, so every final event is taken exactly once and
 * the order of the chain never depends on when transactions committed. seq alone would not do: a sequence value
 * is drawn at insert, and a transaction that drew a smaller one may commit after one that drew a larger one. A
 * long-running transaction holds the horizon back and so delays linking of newer events; it never breaks it.
 */
export async function linkAuditChain(db: Database, opts: { batch?: number } = {}): Promise<LinkPass> {
  const batch = opts.batch ?? 1000;
  return db.transaction(async (tx) => {
    const lock = await tx.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [SEQUENCER_LOCK_ID]);
    if (!lock.rows[0].locked) return { locked: false, linked: 0, caughtUp: false, horizon: undefined };
    // After the lock: the cursor read here sees the links of whichever pass held it before.
    const cursor = await readChainCursor(tx);
    const h = await tx.query('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
    const horizon = h.rows[0].horizon as string;
    const ev = await tx.query({
      name: 'audit-chain-next',
      text: `SELECT e.seq, e.id, e.platform_id, e.organization_id, e.actor, e.action, e.resource_type, e.resource_id, e.request_id, e.before, e.after, e."timestamp", e.txid::text AS txid
        FROM audit_events e WHERE e.txid < $1::xid8 AND (e.txid, e.seq) > ($2::xid8, $3::bigint) ORDER BY e.txid, e.seq LIMIT $4`,
      values: [horizon, cursor.txid, cursor.seq, batch],
    });
    if (ev.rows.length === 0) return { locked: true, linked: 0, caughtUp: true, horizon };
    const orgs = [...new Set(ev.rows.map((r) => r.organization_id as string))];
    const heads = await tx.query({
      name: 'audit-chain-heads',
      text: `SELECT o.org, h.position, h.hash FROM unnest($1::text[]) AS o(org)
        LEFT JOIN LATERAL (SELECT position, hash FROM audit_chain WHERE organization_id = o.org ORDER BY position DESC LIMIT 1) h ON true`,
      values: [orgs],
    });
    const head = new Map<string, { position: number; hash: string }>(
      heads.rows.map((r) => [r.org, { position: Number(r.position ?? 0), hash: r.hash ?? GENESIS_HASH }]),
    );
    const cols = {
      org: [] as string[],
      position: [] as number[],
      seq: [] as number[],
      id: [] as string[],
      txid: [] as string[],
      prev: [] as string[],
      hash: [] as string[],
    };
    for (const row of ev.rows) {
      const prev = head.get(row.organization_id)!;
      // The hash covers the event exactly as stored and read back, which is what the verifier recomputes.
      const next = { position: prev.position + 1, hash: auditHash(prev.hash, auditEntryOfRow(row)) };
      cols.org.push(row.organization_id);
      cols.position.push(next.position);
      cols.seq.push(Number(row.seq));
      cols.id.push(row.id);
      cols.txid.push(row.txid);
      cols.prev.push(prev.hash);
      cols.hash.push(next.hash);
      head.set(row.organization_id, next);
    }
    await tx.query({
      name: 'audit-chain-insert',
      text: `INSERT INTO audit_chain (organization_id, position, event_seq, event_id, txid, prev_hash, hash)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::xid8[], $6::text[], $7::text[])`,
      values: [cols.org, cols.position, cols.seq, cols.id, cols.txid, cols.prev, cols.hash],
    });
    return { locked: true, linked: ev.rows.length, caughtUp: ev.rows.length < batch, horizon };
  });
}

/**
 * Waits until every audit event committed before the call is linked, linking itself when no other process is
 * (tests and `audit:verify` use it; nothing on the request path does). A transaction still open anywhere in the
 * cluster holds linking back, so this waits for it too, at most `timeoutMs`.
 */
export async function waitForAuditLinks(
  db: Database,
  opts: { batch?: number; timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  // Every transaction that has committed by now has an id below the xmax of a snapshot taken now.
  const target = BigInt((await db.query('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax')).rows[0].xmax);
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const pass = await linkAuditChain(db, opts);
    if (pass.locked && pass.caughtUp && BigInt(pass.horizon!) >= target) return;
    if (!pass.locked && (await linkedThrough(db, target))) return;
    if (Date.now() > deadline)
      throw new Error(
        `audit events committed before txid ${target} were not linked within ${opts.timeoutMs ?? 30_000} ms: a transaction that old is still open, or no sequencer can take its lock`,
      );
    if (!pass.locked || pass.caughtUp) await sleep(opts.pollMs ?? 20);
  }
}

/** Answers whether every transaction below `target` has finished and all its events are linked. */
async function linkedThrough(db: Queryable, target: bigint): Promise<boolean> {
  // A cursor read before the check can only be older than the one the check would see: at worst a false "no".
  const cursor = await readChainCursor(db);
  const r = await db.query({
    name: 'audit-chain-linked-through',
    text: `SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8
        AND NOT EXISTS (SELECT 1 FROM audit_events WHERE txid < $1::xid8 AND (txid, seq) > ($2::xid8, $3::bigint)) AS done`,
    values: [target.toString(), cursor.txid, cursor.seq],
  });
  return r.rows[0].done === true;
}
