import { ServiceError } from '../../errors/service-error.js';
import type { Queryable } from '../../persistence/database.js';
import {
  findCalendarConnectionRow,
  toCalendarConnectionView,
  type CalendarConnectionView,
} from '../../persistence/calendar-connection-repository.js';
import type { Caller } from '../../application/caller.js';

/** Reads a connection of the caller's organization: 404 when unknown, 403 when another organization's. */
export async function connectionOfCaller(
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
