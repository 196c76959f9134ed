import type { Queryable } from '../persistence/database.js';
import { appendAudit } from '../persistence/audit-log.js';
import type { Caller } from './caller.js';
import { callerAuditEntry } from './caller-audit-entry.js';

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
  const entry = callerAuditEntry(caller, now, e);
  return appendAudit(tx, { ...entry, organizationId: e.organizationId ?? entry.organizationId });
}
