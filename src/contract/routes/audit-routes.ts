import {
  AuditChainVerification,
  AuditEvent,
  ListAuditEventsQuery,
  VerifyAuditChainQuery,
} from '../schemas/audit-event.js';
import { listOf } from '../schemas/list-envelope.js';
import type { RouteSpec } from '../route.js';

/** Audit log routes (CONTRACT part 7). */
export const auditRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v2/audit-events',
    service: 'AuditService',
    rpc: 'ListAuditEvents',
    tag: 'audit',
    summary: 'List the organization’s audit events, newest first.',
    description:
      "Lists the organization's audit events newest first by `timestamp` (the time of the request), ties by `id`, filtered by action, resource type or resource id; cursor pagination. A write's event is listed once the write is answered; a read's event (a call made with Service-Organization-Id) up to 2 s after its answer, in its place by time.",
    query: ListAuditEventsQuery,
    response: listOf(AuditEvent),
  },
  {
    method: 'GET',
    path: '/api/v2/audit-events/verification',
    service: 'AuditService',
    rpc: 'VerifyAuditChain',
    tag: 'audit',
    summary:
      "Verify the organization's audit hash chain: the latest `limit` links (default 10,000, at most 50,000; `complete` says whether that was the whole chain) and the latest events not linked yet. `broken` lists each break.",
    description: "Recomputes the organization's audit hash chain and reports breaks, for tamper checks.",
    query: VerifyAuditChainQuery,
    response: AuditChainVerification,
  },
];
