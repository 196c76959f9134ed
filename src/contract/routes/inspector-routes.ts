import { ActorPath, ActorView, Machine, MachineCatalogue, MachinePath } from '../schemas/inspector.js';
import type { RouteSpec } from '../route.js';

/** Inspector routes (issue 13): the machine catalogue and read-only views of one actor of the caller's organization. */
export const inspectorRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/inspector/machines',
    service: 'InspectorService',
    rpc: 'ListMachines',
    tag: 'inspector',
    summary:
      'The machines the service runs (resolution, hold, booking), read from their definitions: version, states, events, transitions with their guards, and a Graphviz DOT drawing.',
    description: 'Answers the state machine catalogue for drawing and inspection; the same for every organization.',
    access: 'Any API key.',
    response: MachineCatalogue,
  },
  {
    method: 'GET',
    path: '/api/v2/inspector/machines/:machine',
    service: 'InspectorService',
    rpc: 'GetMachine',
    tag: 'inspector',
    summary: 'One machine of the catalogue.',
    description: 'Answers one machine of the catalogue by name.',
    access: 'Any API key.',
    params: MachinePath,
    response: Machine,
  },
  {
    method: 'GET',
    path: '/api/v2/inspector/actors/:kind/:id',
    service: 'InspectorService',
    rpc: 'GetActor',
    tag: 'inspector',
    summary:
      'One resolution, hold or booking actor of the organization: current state, persisted snapshot and revision, event history with who caused each step, durable timers, and the transitions taken, numbered. 404 once the actor has expired from the store.',
    description: "Answers the live view of one actor of the caller's organization, as the inspector draws it.",
    params: ActorPath,
    response: ActorView,
    errors: ['RESOLUTION_NOT_FOUND', 'HOLD_NOT_FOUND', 'BOOKING_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/api/v2/inspector/actors/:kind/:id/stream',
    service: 'InspectorService',
    rpc: 'WatchActor',
    tag: 'inspector',
    summary:
      'Follow one actor live as Server-Sent Events: an `actor` event with the GET /api/v2/inspector/actors/:kind/:id view at once, then one each time the actor changes (at most ~250 ms behind), and a `: keepalive` comment every 15 s. Refusals (403, 404, 400) are ordinary JSON error answers; an `error` event carrying the error envelope ends the stream if the actor expires while followed. Read it with fetch() (EventSource cannot send Authorization).',
    description: 'Streams the actor view of GET /api/v2/inspector/actors/:kind/:id as it changes.',
    params: ActorPath,
    response: ActorView,
    stream: { format: 'sse', event: 'actor' },
    errors: ['RESOLUTION_NOT_FOUND', 'HOLD_NOT_FOUND', 'BOOKING_NOT_FOUND'],
  },
];
