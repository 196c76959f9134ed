import type { z } from 'zod';
import { ServiceError, validationError, type ErrorDetail } from '../errors/service-error.js';
import { issuesToDetails, parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import {
  CalendarConnectionPath,
  CreateCalendarConnectionBody,
  ListCalendarConnectionsQuery,
  UpdateCalendarConnectionBody,
} from '../contract/schemas/calendar-connection.js';
import { validateSchedule } from '../domain/availability/validate-schedule.js';
import type { Weekday } from '../domain/provider.js';
import {
  calendarConnectionDoc,
  countCalendarConnections,
  deleteCalendarConnectionRow,
  findCalendarConnectionRow,
  fullWeek,
  insertCalendarConnectionRow,
  listCalendarConnectionRows,
  toCalendarConnectionView,
  updateCalendarConnectionRow,
  type CalendarConnectionDoc,
  type CalendarConnectionView,
  type StoredDay,
} from '../persistence/calendar-connection-repository.js';
import type { Queryable } from '../persistence/database.js';
import { newId } from '../persistence/new-id.js';
import { bumpGraphVersion } from '../persistence/organization-repository.js';
import { queueProviderTime } from './waitlist/queue-provider-time.js';
import type { AppDeps } from './app-deps.js';
import type { Caller } from './caller.js';
import type { OperationTable } from './operation.js';
import { providerOfCaller } from './provider-of-caller.js';
import { recordAudit } from './record-audit.js';
import { checkFeedUrl } from './resolution/feed-client.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';

/** Answers whether two dotted field paths name the same field or one contains the other. */
function overlapping(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * Validates a body with its schema and the schedule it describes with validateSchedule, reporting every problem
 * of both in one 400 (a schedule problem already named by the schema is reported once).
 */
function parseScheduleBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  schedule: (raw: unknown) => unknown,
): z.output<S> {
  const r = schema.safeParse(body, { reportInput: true });
  const details: ErrorDetail[] = r.success ? [] : issuesToDetails(r.error.issues);
  // The raw body, not the parsed one: parsing drops unknown keys such as a misspelt weekday.
  for (const p of validateSchedule(schedule(body))) {
    if (!details.some((d) => overlapping(d.field, p.field)))
      details.push({ field: p.field || '(body)', code: 'INVALID', message: p.message });
  }
  if (details.length > 0 || !r.success) throw validationError(details);
  return r.data;
}

/** The schedule part of a raw or parsed body, as validateSchedule reads it. */
function schedulePart(body: unknown) {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return { timezone: b.timezone, days: b.days, overrides: b.overrides ?? undefined };
}

/** Reads a connection of the caller's organization: 404 when unknown, 403 when another organization's. */
async function connectionOfCaller(
  db: Queryable,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<CalendarConnectionView> {
  const row = await findCalendarConnectionRow(db, id, opts);
  if (!row) throw new ServiceError('CALENDAR_CONNECTION_NOT_FOUND');
  if (row.organization_id !== caller.organizationId) throw new ServiceError('FORBIDDEN');
  return toCalendarConnectionView(row);
}

/** CalendarService operations: weekly availability schedules with date overrides and optional iCalendar feeds. */
export function createCalendarOperations(deps: AppDeps): OperationTable {
  /** Refuses a feed URL the guarded feed client would not fetch (400 on `externalCalendar.url`). */
  const checkFeed = (externalCalendar: { url: string } | null | undefined) =>
    externalCalendar
      ? checkFeedUrl(externalCalendar.url, {
          allowInsecure: deps.config.outboundAllowInsecureUrls,
          lookup: deps.outboundLookup,
        })
      : Promise.resolve();
  return {
    CreateCalendarConnection: {
      audit: { ...AUDIT_ACTIONS.calendarConnectionCreate, kind: 'write' },
      async handler(caller, input) {
        const body = parseScheduleBody(CreateCalendarConnectionBody, input.body, schedulePart);
        // Outside the transaction: resolving the feed's host may take a while and needs no lock.
        await checkFeed(body.externalCalendar);
        const doc: CalendarConnectionDoc = {
          title: body.title ?? null,
          timezone: body.timezone,
          days: fullWeek(body.days as Partial<Record<Weekday, StoredDay>>),
          overrides: body.overrides ?? [],
          externalCalendar: body.externalCalendar ?? null,
        };
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const provider = await providerOfCaller(tx, caller, body.providerId);
          const row = await insertCalendarConnectionRow(tx, {
            id: newId('cal', now.getTime()),
            platformId: caller.platformId,
            organizationId: caller.organizationId,
            providerId: provider.id,
            doc,
            now,
          });
          const view = toCalendarConnectionView(row);
          await bumpGraphVersion(tx, caller.organizationId);
          await queueProviderTime(tx, { ...caller, providerId: provider.id, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.calendarConnectionCreate,
            resourceId: view.id,
            after: view,
          });
          return view;
        });
      },
    },
    ListCalendarConnections: {
      audit: { ...AUDIT_ACTIONS.calendarConnectionList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListCalendarConnectionsQuery, input.query);
        if (q.providerId !== undefined) await providerOfCaller(deps.db, caller, q.providerId);
        const limit = q.limit ?? 50;
        const filter = { organizationId: caller.organizationId, providerId: q.providerId };
        const total = await countCalendarConnections(deps.db, filter);
        const rows = await listCalendarConnectionRows(deps.db, filter, {
          after: decodeCursor(q.cursor),
          limit: limit + 1,
        });
        return { ...page(rows.map(toCalendarConnectionView), limit, (c) => c.id), total };
      },
    },
    GetCalendarConnection: {
      audit: { ...AUDIT_ACTIONS.calendarConnectionRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(CalendarConnectionPath, input.params);
        return connectionOfCaller(deps.db, caller, id);
      },
    },
    UpdateCalendarConnection: {
      audit: { ...AUDIT_ACTIONS.calendarConnectionUpdate, kind: 'write-if-changed' },
      async handler(caller, input) {
        const { id } = parseInput(CalendarConnectionPath, input.params);
        // Tenancy and existence come before body validation, so a foreign id is 403 whatever the body says.
        await connectionOfCaller(deps.db, caller, id);
        // A feed URL is checked outside the transaction (DNS needs no lock); a body the schema refuses is reported by
        // the parse below.
        const early = UpdateCalendarConnectionBody.safeParse(input.body ?? {});
        if (early.success) await checkFeed(early.data.externalCalendar);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await connectionOfCaller(tx, caller, id, { forUpdate: true });
          // The whole schedule after the change is validated, not just the fields sent.
          const merged = (raw: unknown) => {
            const b = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
            const days =
              b.days === undefined
                ? cur.days
                : typeof b.days === 'object' && b.days !== null && !Array.isArray(b.days)
                  ? { ...cur.days, ...b.days }
                  : b.days;
            return {
              timezone: b.timezone ?? cur.timezone,
              days,
              overrides: b.overrides === undefined ? cur.overrides : (b.overrides ?? []),
            };
          };
          const body = parseScheduleBody(UpdateCalendarConnectionBody, input.body ?? {}, merged);
          const next: CalendarConnectionDoc = {
            title: body.title === undefined ? cur.title : body.title,
            timezone: body.timezone ?? cur.timezone,
            days:
              body.days === undefined
                ? cur.days
                : fullWeek({ ...cur.days, ...(body.days as Partial<Record<Weekday, StoredDay>>) }),
            overrides: body.overrides === undefined ? cur.overrides : (body.overrides ?? []),
            externalCalendar: body.externalCalendar === undefined ? cur.externalCalendar : body.externalCalendar,
          };
          if (JSON.stringify(next) === JSON.stringify(calendarConnectionDoc(cur))) return cur;
          const view = toCalendarConnectionView(await updateCalendarConnectionRow(tx, id, next, now));
          await bumpGraphVersion(tx, caller.organizationId);
          // A schedule widened (or busy overrides removed) may free time for the waitlist.
          await queueProviderTime(tx, { ...caller, providerId: view.providerId, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.calendarConnectionUpdate,
            resourceId: id,
            before: cur,
            after: view,
          });
          return view;
        });
      },
    },
    DeleteCalendarConnection: {
      audit: { ...AUDIT_ACTIONS.calendarConnectionDelete, kind: 'write' },
      async handler(caller, input) {
        const { id } = parseInput(CalendarConnectionPath, input.params);
        await connectionOfCaller(deps.db, caller, id);
        const now = deps.clock();
        return deps.db.transaction(async (tx) => {
          const cur = await connectionOfCaller(tx, caller, id, { forUpdate: true });
          await deleteCalendarConnectionRow(tx, id);
          await bumpGraphVersion(tx, caller.organizationId);
          // Its busy overrides and external calendar go with it: time may free for the waitlist.
          await queueProviderTime(tx, { ...caller, providerId: cur.providerId, now });
          await recordAudit(tx, caller, now, {
            ...AUDIT_ACTIONS.calendarConnectionDelete,
            resourceId: id,
            before: cur,
            after: null,
          });
          return { ...cur, deleted: true };
        });
      },
    },
  };
}
