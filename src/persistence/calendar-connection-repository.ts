import type { TimeWindow, Weekday } from '../domain/provider.js';
import type { Queryable } from './database.js';
import { keysetPage } from './keyset-page.js';

/** One weekday of a stored schedule. */
export interface StoredDay {
  enabled: boolean;
  slots: TimeWindow[];
}

/** The stored schedule fields kept in the `doc` column; `days` has all seven weekdays. */
export interface CalendarConnectionDoc {
  title: string | null;
  timezone: string;
  days: Record<Weekday, StoredDay>;
  overrides: { date: string; slots: TimeWindow[] }[];
  externalCalendar: { type: 'ics'; url: string } | null;
}

/** A calendar connection as the API answers it. */
export interface CalendarConnectionView extends CalendarConnectionDoc {
  id: string;
  organizationId: string;
  providerId: string;
  status: 'active';
  createdAt: string;
  updatedAt: string;
}

const WEEKDAYS: readonly Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Fills in the weekdays left out (closed) so every stored and answered schedule names all seven. */
export function fullWeek(days: Partial<Record<Weekday, StoredDay>>): Record<Weekday, StoredDay> {
  const out = {} as Record<Weekday, StoredDay>;
  for (const d of WEEKDAYS) {
    const day = days[d];
    out[d] = day
      ? { enabled: day.enabled, slots: day.slots.map((s) => ({ start: s.start, end: s.end })) }
      : { enabled: false, slots: [] };
  }
  return out;
}

/** Maps a calendar_connections row to its answer shape. */
export function toCalendarConnectionView(row: Record<string, any>): CalendarConnectionView {
  const d = row.doc as Partial<CalendarConnectionDoc>;
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    title: d.title ?? null,
    timezone: d.timezone ?? 'UTC',
    status: 'active',
    days: fullWeek(d.days ?? {}),
    // jsonb reorders object keys; rebuild them so answers read naturally and compare stably.
    overrides: (d.overrides ?? []).map((o) => ({
      date: o.date,
      slots: o.slots.map((s) => ({ start: s.start, end: s.end })),
    })),
    externalCalendar: d.externalCalendar ? { type: d.externalCalendar.type, url: d.externalCalendar.url } : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Splits a view into the stored doc. */
export function calendarConnectionDoc(v: CalendarConnectionDoc): CalendarConnectionDoc {
  return {
    title: v.title,
    timezone: v.timezone,
    days: v.days,
    overrides: v.overrides,
    externalCalendar: v.externalCalendar,
  };
}

/** Reads one calendar connection row by id (any organization; callers check tenancy). */
export async function findCalendarConnectionRow(db: Queryable, id: string, opts: { forUpdate?: boolean } = {}) {
  const r = await db.query(`SELECT * FROM calendar_connections WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [
    id,
  ]);
  return r.rows[0] as Record<string, any> | undefined;
}

/** Inserts a calendar connection and returns its row. */
export async function insertCalendarConnectionRow(
  tx: Queryable,
  c: {
    id: string;
    platformId: string;
    organizationId: string;
    providerId: string;
    doc: CalendarConnectionDoc;
    now: Date;
  },
) {
  const r = await tx.query(
    `INSERT INTO calendar_connections (id, platform_id, organization_id, provider_id, doc, created_at, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$6) RETURNING *`,
    [c.id, c.platformId, c.organizationId, c.providerId, JSON.stringify(c.doc), c.now],
  );
  return r.rows[0] as Record<string, any>;
}

/** Replaces a calendar connection's stored fields and returns the new row. */
export async function updateCalendarConnectionRow(tx: Queryable, id: string, doc: CalendarConnectionDoc, now: Date) {
  const r = await tx.query('UPDATE calendar_connections SET doc = $2, updated_at = $3 WHERE id = $1 RETURNING *', [
    id,
    JSON.stringify(doc),
    now,
  ]);
  return r.rows[0] as Record<string, any>;
}

/** Removes a calendar connection (resolution reads every stored row as an active schedule). */
export async function deleteCalendarConnectionRow(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM calendar_connections WHERE id = $1', [id]);
}

/** Filters of a connection list; `organizationId` is always applied. */
export interface CalendarConnectionFilter {
  organizationId: string;
  providerId?: string | undefined;
}

function filterSql(f: CalendarConnectionFilter) {
  const where = ['organization_id = $1'];
  const args: unknown[] = [f.organizationId];
  if (f.providerId !== undefined) {
    args.push(f.providerId);
    where.push(`provider_id = $${args.length}`);
  }
  return { where, args };
}

/** Counts the connections matching a filter. */
export async function countCalendarConnections(db: Queryable, f: CalendarConnectionFilter): Promise<number> {
  const { where, args } = filterSql(f);
  const r = await db.query(`SELECT count(*) AS n FROM calendar_connections WHERE ${where.join(' AND ')}`, args);
  return Number(r.rows[0].n);
}

/** Lists connections matching a filter in id order, after the keyset position `after`, at most `limit` rows. */
export async function listCalendarConnectionRows(
  db: Queryable,
  f: CalendarConnectionFilter,
  page: { after?: string | undefined; limit: number },
) {
  const { where, args } = filterSql(f);
  const orderLimit = keysetPage(
    { where, args },
    { columns: ['id'], order: 'asc', after: page.after === undefined ? undefined : [page.after], limit: page.limit },
  );
  const r = await db.query(`SELECT * FROM calendar_connections WHERE ${where.join(' AND ')} ${orderLimit}`, args);
  return r.rows as Record<string, any>[];
}

/** Reads a provider's newest calendar connection row (its current schedule), or undefined. */
export async function findLatestCalendarConnectionRow(db: Queryable, providerId: string) {
  const r = await db.query('SELECT * FROM calendar_connections WHERE provider_id = $1 ORDER BY id DESC LIMIT 1', [
    providerId,
  ]);
  return r.rows[0] as Record<string, any> | undefined;
}
