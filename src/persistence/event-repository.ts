import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';
import { idTimeBound } from './new-id.js';

/** A stored event with what its envelope needs: the row, and the latest attempt of its delivery (0 when none). */
export interface EventRow {
  id: string;
  type: string;
  api_version: string;
  created_at: Date;
  organization_id: string;
  mode: 'live' | 'test';
  data: unknown;
  attempt: number;
}

/**
 * The event's columns and its delivery's latest attempt: one delivery at most per event (webhook_deliveries.event_id
 * is unique), so the join never repeats an event.
 */
const EVENT_COLUMNS = `e.id, e.type, e.api_version, e.created_at, e.organization_id, e.mode, e.data,
  coalesce((SELECT d.attempt FROM webhook_deliveries d WHERE d.event_id = e.id), 0) AS attempt`;

/** Filters of an event list; always one organization's, never older than `notBefore` (the retention bound). */
export interface EventFilter {
  organizationId: string;
  notBefore: Date;
  type?: string | undefined;
  since?: Date | undefined;
  mode?: 'live' | 'test' | undefined;
}

/**
 * Lists an organization's events newest first (created_at, then id, descending) after the event `afterId` (the last
 * of the previous page), whose position is read from its own row, so it keeps PostgreSQL's microsecond precision;
 * an id that is not one of the organization's events gives an empty page. Served by events_org_time (or
 * events_org_type_time with a type), migration 0012.
 */
export async function listEvents(
  db: Queryable,
  f: EventFilter,
  page: { afterId?: string | undefined; limit: number },
): Promise<EventRow[]> {
  const where = ['e.organization_id = $1', 'e.created_at >= $2'];
  const args: unknown[] = [f.organizationId, f.since && f.since > f.notBefore ? f.since : f.notBefore];
  if (f.type !== undefined) {
    args.push(f.type);
    where.push(`e.type = $${args.length}`);
  }
  if (f.mode !== undefined) {
    args.push(f.mode);
    where.push(`e.mode = $${args.length}`);
  }
  const afterId = page.afterId;
  const orderLimit = keysetPage(
    { where, args },
    {
      columns: ['e.created_at', 'e.id'],
      order: 'desc',
      after:
        afterId === undefined
          ? undefined
          : (p) => `(SELECT p.created_at, p.id FROM events p WHERE p.id = ${p(afterId)} AND p.organization_id = $1)`,
      limit: page.limit,
    },
  );
  const r = await db.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE ${where.join(' AND ')} ${orderLimit}`, args);
  return r.rows as EventRow[];
}

/**
 * Reads one event by id, whichever organization it belongs to, so the caller can tell an unknown id (404) from
 * another organization's (403 FORBIDDEN); callers compare `organization_id` and the retention bound before use.
 */
export async function findEvent(db: Queryable, id: string): Promise<EventRow | undefined> {
  const r = await db.query(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = $1`, [id]);
  return r.rows[0] as EventRow | undefined;
}

/**
 * Deletes up to `limit` events created before `before`, with their delivery records and attempts, in one statement;
 * answers how many events it deleted. Events are taken oldest id first with SKIP LOCKED, so sweepers of several
 * processes skip each other's rows. Ids begin with their creation time, so a range of the primary key below
 * `before`'s bound finds them without an index on created_at and ends where the recent events begin. An event not
 * yet dispatched is left for the dispatcher.
 */
export async function deleteEventsBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const r = await db.query(
    `WITH old AS (
       SELECT id FROM events WHERE id < $3 AND created_at < $1 AND dispatched_at IS NOT NULL
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
     ), deliveries AS (
       SELECT d.id FROM webhook_deliveries d JOIN old ON d.event_id = old.id
     ), attempts AS (
       DELETE FROM webhook_attempts a USING deliveries WHERE a.delivery_id = deliveries.id
     ), gone AS (
       DELETE FROM webhook_deliveries d USING deliveries WHERE d.id = deliveries.id
     )
     DELETE FROM events e USING old WHERE e.id = old.id`,
    [before, limit, idTimeBound('evt', before.getTime())],
  );
  return r.rowCount ?? 0;
}
