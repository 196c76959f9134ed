import type { AuditEntry } from '../persistence/audit-log.js';
import { auditActor, type Caller } from './caller.js';

/** The audit entry of a caller's write, for statements that append it themselves (as recordAudit would). */
export function callerAuditEntry(
  caller: Caller,
  now: Date,
  e: { action: string; resourceType: string; resourceId: string | null; before?: unknown; after?: unknown },
): AuditEntry {
  return {
    platformId: caller.platformId,
    organizationId: caller.organizationId,
    actor: auditActor(caller),
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    requestId: caller.requestId,
    before: e.before ?? null,
    after: e.after ?? null,
    timestamp: now,
  };
}
