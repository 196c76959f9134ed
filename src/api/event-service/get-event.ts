import { ServiceError } from '../../errors/service-error.js';
import type { GetEventRequest, GetEventResponse } from '../../gen/scheduling/v1/event_service.js';
import { EventPath } from '../../contract/schemas/event.js';
import type { Database } from '../../persistence/database.js';
import { findEvent } from '../../persistence/event-repository.js';
import type { Caller } from '../../application/caller.js';
import { pathId } from '../request-problems.js';
import { eventMessage } from '../messages/event-message.js';
import { retainedSince } from './retained-since.js';

/** What GetEvent uses. */
export interface GetEventDeps {
  db: Database;
  clock: () => Date;
}

/**
 * GetEvent: one event of the last 30 days, the envelope its webhook deliveries carry; 404 EVENT_NOT_FOUND when no event
 * has the id or it is older, 403 FORBIDDEN when it belongs to another organization.
 */
export async function getEvent(
  deps: GetEventDeps,
  caller: Caller,
  request: GetEventRequest,
): Promise<GetEventResponse> {
  const id = pathId(EventPath.shape.id, request.id);
  const row = await findEvent(deps.db, id);
  if (!row || row.created_at < retainedSince(deps.clock()))
    throw new ServiceError('EVENT_NOT_FOUND', `No event ${id}.`);
  if (row.organization_id !== caller.organizationId)
    throw new ServiceError('FORBIDDEN', 'This event belongs to another organization.');
  return { event: eventMessage(row) };
}
