import type { CalendarConnectionView, StoredDay } from '../../persistence/calendar-connection-repository.js';
import type { TimeWindow as StoredWindow } from '../../domain/provider.js';
import type {
  CalendarConnection,
  Day,
  DeletedCalendarConnection,
  TimeWindow,
  WeekDays,
} from '../../gen/scheduling/v1/resources.js';

const windowMessage = (w: StoredWindow): TimeWindow => ({ start: w.start, end: w.end });
const dayMessage = (d: StoredDay): Day => ({ enabled: d.enabled, slots: d.slots.map(windowMessage) });

/** The seven weekdays of a stored schedule. */
function weekDaysMessage(days: CalendarConnectionView['days']): WeekDays {
  return {
    monday: dayMessage(days.monday),
    tuesday: dayMessage(days.tuesday),
    wednesday: dayMessage(days.wednesday),
    thursday: dayMessage(days.thursday),
    friday: dayMessage(days.friday),
    saturday: dayMessage(days.saturday),
    sunday: dayMessage(days.sunday),
  };
}

/** The `CalendarConnection` message of a connection (no title or external calendar: unset). */
export function calendarConnectionMessage(c: CalendarConnectionView): CalendarConnection {
  return {
    id: c.id,
    organizationId: c.organizationId,
    providerId: c.providerId,
    title: c.title ?? undefined,
    timezone: c.timezone,
    status: c.status,
    days: weekDaysMessage(c.days),
    overrides: c.overrides.map((o) => ({ date: o.date, slots: o.slots.map(windowMessage) })),
    externalCalendar: c.externalCalendar ? { type: c.externalCalendar.type, url: c.externalCalendar.url } : undefined,
    createdAt: new Date(c.createdAt),
    updatedAt: new Date(c.updatedAt),
  };
}

/** The `DeletedCalendarConnection` message: the connection as it was, `deleted` true. */
export function deletedCalendarConnectionMessage(c: CalendarConnectionView): DeletedCalendarConnection {
  return { ...calendarConnectionMessage(c), deleted: true };
}
