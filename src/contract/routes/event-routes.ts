import { Event, EventPath, ListEventsQuery } from '../schemas/event.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';

/**
 * Events routes (CONTRACT part 8): the organization's events of the last 30 days, each exactly the envelope its
 * webhook deliveries carry, so a consumer that missed deliveries catches up without replays.
 */
export const eventRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/events',
    service: 'EventService',
    rpc: 'ListEvents',
    tag: 'events',
    summary:
      'List the organization’s events of the last 30 days newest first as `{data, hasMore, nextCursor}`, optionally of one `type`, from `since` on, or of one key `mode`; each item is exactly the envelope a webhook delivery of it carries.',
    description:
      'Reconciliation for webhook consumers: read what was emitted while a receiver was down, deduplicating on the event `id` (the `webhook-id` of its deliveries). Events are kept 30 days. Test and live keys both read every event of their organization.',
    query: ListEventsQuery,
    response: listOf(Event),
  },
  {
    method: 'GET',
    path: '/api/v2/events/:id',
    service: 'EventService',
    rpc: 'GetEvent',
    tag: 'events',
    summary: 'Read one event of the last 30 days: the envelope its webhook deliveries carry.',
    description:
      'Answers the event by id; 404 EVENT_NOT_FOUND when no event has the id or it is older than 30 days, 403 FORBIDDEN when it belongs to another organization.',
    params: EventPath,
    response: Event,
    errors: ['EVENT_NOT_FOUND'],
  },
];
