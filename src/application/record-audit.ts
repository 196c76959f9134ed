import type { Queryable } from '../persistence/database.js';
import { appendAudit } from '../persistence/audit-log.js';
import { auditActor, type Caller } from './caller.js';

/** Appends the audit event of a caller's write inside its transaction. */
export function recordAudit(
  tx: Queryable,
  caller: Caller,
  now: Date,
  e: {
    action: string;
    resourceType: string;
    resourceId: string | null;
    before?: unknown;
    after?: unknown;
    organizationId?: string;
  },
) {
  return appendAudit(tx, {
    platformId: caller.platformId,
    organizationId: e.organizationId ?? caller.organizationId,
    actor: auditActor(caller),
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    requestId: caller.requestId,
    before: e.before ?? null,
    after: e.after ?? null,
    timestamp: now,
  });
}
