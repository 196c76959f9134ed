import { ActorPath, ActorView, Machine, MachineCatalogue, MachinePath } from '../schemas/inspector.js';
import type { RouteSpec } from '../route.js';

/** Inspector routes (issue 13): the machine catalogue and read-only views of one actor of the caller's organization. */
export const inspectorRoutes: RouteSpec[] = [
  { method: 'GET', path: '/api/v2/inspector/machines', service: 'InspectorService', rpc: 'ListMachines', tag: 'inspector', summary: 'The machines the service runs (resolution, hold, booking), read from their definitions: version, states, events, transitions with their guards, and a Graphviz DOT drawing.', response: MachineCatalogue },
  { method: 'GET', path: '/api/v2/inspector/machines/:machine', service: 'InspectorService', rpc: 'GetMachine', tag: 'inspector', summary: 'One machine of the catalogue.', params: MachinePath, response: Machine },
  { method: 'GET', path: '/api/v2/inspector/actors/:kind/:id', service: 'InspectorService', rpc: 'GetActor', tag: 'inspector', summary: 'One resolution, hold or booking actor of the organization: current state, persisted snapshot and revision, event history with who caused each step, durable timers, and the transitions taken, numbered. 404 once the actor has expired from the store.', params: ActorPath, response: ActorView, errors: ['RESOLUTION_NOT_FOUND', 'HOLD_NOT_FOUND', 'BOOKING_NOT_FOUND'] },
];
