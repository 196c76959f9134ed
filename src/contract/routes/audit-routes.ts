import { AuditEvent, ListAuditEventsQuery } from '../schemas/audit-event.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';

/** Audit log routes (CONTRACT part 7). */
export const auditRoutes: RouteSpec[] = [
  { method: 'GET', path: '/api/v2/audit-events', service: 'AuditService', rpc: 'ListAuditEvents', tag: 'audit', summary: 'List the organization’s audit events, newest first.', query: ListAuditEventsQuery, response: listOf(AuditEvent) },
];
