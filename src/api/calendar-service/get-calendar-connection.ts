import type {
  GetCalendarConnectionRequest,
  GetCalendarConnectionResponse,
} from '../../gen/scheduling/v1/calendar_service.js';
import { CalendarConnectionPath } from '../../contract/schemas/calendar-connection.js';
import type { Database } from '../../persistence/database.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { calendarConnectionMessage } from '../messages/calendar-connection-message.js';
import { connectionOfCaller } from './connection-of-caller.js';

/** What GetCalendarConnection uses. */
export interface GetCalendarConnectionDeps {
  db: Database;
}

/** GetCalendarConnection: one connection of the caller's organization (404 unknown, 403 another organization's). */
export async function getCalendarConnection(
  deps: GetCalendarConnectionDeps,
  caller: Caller,
  request: GetCalendarConnectionRequest,
): Promise<GetCalendarConnectionResponse> {
  const id = pathId(CalendarConnectionPath.shape.id, request.id);
  return { calendarConnection: calendarConnectionMessage(await connectionOfCaller(deps.db, caller, id)) };
}
