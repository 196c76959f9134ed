import { z } from 'zod';
import { closedObject } from '../closed-object.js';
import { cursor, ianaTimezone, instant, isoDate, list, nonNegativeInt, pageLimit, text } from '../fields.js';

/** The weekday keys of a schedule, Monday first. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const wallClock = (end: boolean) =>
  z
    .string()
    .max(5)
    .regex(
      end ? /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/ : /^([01]\d|2[0-3]):[0-5]\d$/,
      end ? 'must be HH:MM between 00:01 and 24:00' : 'must be HH:MM between 00:00 and 23:59',
    );

/** One availability window `{start, end}` of wall-clock times in the schedule's timezone; `end` may be `24:00`. */
export const TimeWindowInput = z.object({ start: wallClock(false), end: wallClock(true) });

/** One weekday: whether it is open and its windows (they must not overlap; they may touch). */
export const DayInput = z.object({ enabled: z.boolean(), slots: list(TimeWindowInput, 48) });

/** The weekly pattern, keyed `monday`..`sunday`; a day left out is closed, another key is refused. */
export const DaysInput = closedObject(
  z.object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, DayInput.optional()])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodOptional<typeof DayInput>
    >,
  ),
  (key) => `Unknown day "${key}"; use ${WEEKDAYS.join(', ')}.`,
);

/** A date-specific override: its windows replace that date's weekday windows; empty `slots` is a day off. */
export const OverrideInput = z.object({ date: isoDate(), slots: list(TimeWindowInput, 48) });

/** An iCalendar feed whose events count as busy time. */
export const ExternalCalendarInput = z.object({
  type: z.literal('ics'),
  url: text(1000, 1).refine(
    (u) => {
      try {
        const p = new URL(u).protocol;
        return p === 'http:' || p === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an http or https URL' },
  ),
});

/** Body of POST /api/v2/calendar-connections. */
export const CreateCalendarConnectionBody = z.object({
  providerId: text(200, 1),
  title: text(200).optional(),
  timezone: ianaTimezone(),
  days: DaysInput,
  overrides: list(OverrideInput, 366).optional(),
  externalCalendar: ExternalCalendarInput.optional(),
});

/** Body of PATCH /api/v2/calendar-connections/:id: every field optional; a weekday given replaces that weekday; null clears `title`, `overrides` or `externalCalendar`. */
export const UpdateCalendarConnectionBody = z.object({
  providerId: z.never({ error: 'cannot be changed; create a connection for the other provider instead' }).optional(),
  title: text(200).nullable().optional(),
  timezone: ianaTimezone().optional(),
  days: DaysInput.optional(),
  overrides: list(OverrideInput, 366).nullable().optional(),
  externalCalendar: ExternalCalendarInput.nullable().optional(),
});

/** Path of /api/v2/calendar-connections/:id. */
export const CalendarConnectionPath = z.object({ id: text(200, 1) });

/** Query of GET /api/v2/calendar-connections. */
export const ListCalendarConnectionsQuery = z.object({
  providerId: text(200, 1).optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** A window of a day's availability as answered: provider-local `HH:MM` start and end. */
export const TimeWindow = z.object({ start: z.string(), end: z.string() });

/** One weekday of a schedule as answered: whether it is open and its windows. */
export const Day = z.object({ enabled: z.boolean(), slots: z.array(TimeWindow) });

/** The seven weekdays of a schedule as answered. */
export const WeekDays = z.object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, Day])) as Record<(typeof WEEKDAYS)[number], typeof Day>,
);

/** A dated exception to the weekly schedule as answered: its windows replace the weekday's. */
export const DateOverride = z.object({ date: z.string(), slots: z.array(TimeWindow) });

/** An external ICS calendar whose busy times block slots. */
export const ExternalCalendar = z.object({ type: z.literal('ics'), url: z.string() });

/** A calendar connection (weekly availability schedule) as answered; `days` always has all seven weekdays. */
export const CalendarConnection = z.object({
  id: z.string(),
  organizationId: z.string(),
  providerId: z.string(),
  title: z.string().nullable(),
  timezone: z.string(),
  status: z.literal('active'),
  days: WeekDays,
  overrides: z.array(DateOverride),
  externalCalendar: ExternalCalendar.nullable(),
  createdAt: instant(),
  updatedAt: instant(),
});

/** The answer of DELETE: the connection as it was, plus `deleted: true`. */
export const DeletedCalendarConnection = CalendarConnection.extend({ deleted: z.literal(true) });

/** The calendar connections list envelope. */
export const CalendarConnectionList = z.object({
  data: z.array(CalendarConnection),
  total: nonNegativeInt(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});
