import { parseInput } from '../contract/parse-input.js';
import { decodeCursor, page } from '../contract/pagination.js';
import { EventPath, ListEventsQuery } from '../contract/schemas/event.js';
import { ServiceError } from '../errors/service-error.js';
import { eventEnvelope } from '../persistence/event-outbox.js';
import { findEvent, listEvents, type EventRow } from '../persistence/event-repository.js';
import type { AppDeps } from './app-deps.js';
import { AUDIT_ACTIONS } from './audit/audit-actions.js';
import type { OperationTable } from './operation.js';

/** How long events are kept and listed (CONTRACT part 8): 30 days. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** An event as answered: the envelope its webhook deliveries carry, with its delivery's latest attempt number. */
function toEventView(row: EventRow) {
  return eventEnvelope(row, row.attempt);
}

/**
 * EventService operations (CONTRACT part 8): the caller's organization's events of the last 30 days, newest first
 * (keyset on (created_at, id)), each built by the same envelope builder as its webhook deliveries. Either key mode
 * reads every event of its organization; `mode` narrows the list.
 */
export function createEventOperations(deps: AppDeps): OperationTable {
  /** The oldest instant an event may have to be answered: older ones are gone (or about to be swept). */
  const retained = () => new Date(deps.clock().getTime() - EVENT_RETENTION_MS);

  return {
    ListEvents: {
      audit: { ...AUDIT_ACTIONS.eventList, kind: 'read' },
      async handler(caller, input) {
        const q = parseInput(ListEventsQuery, input.query);
        const limit = q.limit ?? 50;
        const rows = await listEvents(
          deps.db,
          {
            organizationId: caller.organizationId,
            notBefore: retained(),
            type: q.type,
            since: q.since === undefined ? undefined : new Date(q.since),
            mode: q.mode,
          },
          { afterId: decodeCursor(q.cursor), limit: limit + 1 },
        );
        const paged = page(rows, limit, (row) => row.id);
        return { data: paged.data.map(toEventView), hasMore: paged.hasMore, nextCursor: paged.nextCursor };
      },
    },
    GetEvent: {
      audit: { ...AUDIT_ACTIONS.eventRead, kind: 'read' },
      async handler(caller, input) {
        const { id } = parseInput(EventPath, input.params);
        const row = await findEvent(deps.db, id);
        if (!row || row.created_at < retained()) throw new ServiceError('EVENT_NOT_FOUND', `No event ${id}.`);
        if (row.organization_id !== caller.organizationId)
          throw new ServiceError('FORBIDDEN', 'This event belongs to another organization.');
        return toEventView(row);
      },
    },
  };
}
