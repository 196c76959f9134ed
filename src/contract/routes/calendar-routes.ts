import {
  CalendarConnection,
  CalendarConnectionList,
  CalendarConnectionPath,
  CreateCalendarConnectionBody,
  DeletedCalendarConnection,
  ListCalendarConnectionsQuery,
  UpdateCalendarConnectionBody,
} from '../schemas/calendar-connection.js';
import type { RouteSpec } from '../route.js';

/** Calendar connection (weekly availability schedule) routes (SPEC 4.2, CONTRACT part 3). Every write advances the provider graph version. */
export const calendarRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v2/calendar-connections',
    service: 'CalendarService',
    rpc: 'CreateCalendarConnection',
    tag: 'calendar-connections',
    summary:
      'Create a weekly availability schedule for a provider (wall-clock times in its IANA timezone; windows of a day must not overlap).',
    description:
      'Creates the schedule resolutions and slots read: weekly windows, date overrides and an optional ICS feed whose events count as busy. Advances the provider graph version.',
    body: CreateCalendarConnectionBody,
    response: CalendarConnection,
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/calendar-connections',
    service: 'CalendarService',
    rpc: 'ListCalendarConnections',
    tag: 'calendar-connections',
    summary: 'List schedules, optionally of one provider; cursor pagination.',
    description: "Lists the organization's schedules; every weekday is present in each.",
    query: ListCalendarConnectionsQuery,
    response: CalendarConnectionList,
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/calendar-connections/:id',
    service: 'CalendarService',
    rpc: 'GetCalendarConnection',
    tag: 'calendar-connections',
    summary: 'Read a schedule.',
    description: 'Answers one schedule with all seven weekdays.',
    params: CalendarConnectionPath,
    response: CalendarConnection,
    errors: ['CALENDAR_CONNECTION_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/api/v2/calendar-connections/:id',
    service: 'CalendarService',
    rpc: 'UpdateCalendarConnection',
    tag: 'calendar-connections',
    summary:
      'Change a schedule; a weekday sent replaces that weekday, null clears title, overrides or externalCalendar; the resulting schedule is validated as a whole.',
    description: 'The provider cannot be changed (400 on `providerId`). Advances the provider graph version.',
    params: CalendarConnectionPath,
    body: UpdateCalendarConnectionBody,
    response: CalendarConnection,
    errors: ['CALENDAR_CONNECTION_NOT_FOUND'],
  },
  {
    method: 'DELETE',
    path: '/api/v2/calendar-connections/:id',
    service: 'CalendarService',
    rpc: 'DeleteCalendarConnection',
    tag: 'calendar-connections',
    summary: 'Delete a schedule; answers it as it was plus `deleted: true`. Afterwards it is 404.',
    description:
      'Removes the schedule, so its provider has no availability from it any more. Advances the provider graph version.',
    params: CalendarConnectionPath,
    response: DeletedCalendarConnection,
    errors: ['CALENDAR_CONNECTION_NOT_FOUND'],
  },
];
