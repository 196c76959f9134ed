import type { AuditActor, AuditEvent } from '../../gen/scheduling/v1/resources.js';

/** Who made a change, from the row's `actor` JSON: an API key (`keyId`, `keyType`) or the service (`type: system`). */
function auditActorMessage(actor: unknown): AuditActor | undefined {
  if (actor === undefined || actor === null) return undefined;
  const a = actor as Record<string, unknown>;
  if (typeof a === 'object' && 'keyId' in a)
    return { kind: { $case: 'apiKey', value: { keyId: String(a.keyId ?? ''), keyType: String(a.keyType ?? '') } } };
  if (typeof a === 'object' && a.type === 'system') return { kind: { $case: 'system', value: { type: 'system' } } };
  return {};
}

/**
 * The `AuditEvent` message of an audit_events row: `before` and `after` as stored (free-form, null when there is
 * none), no resource or request id unset.
 */
export function auditEventMessage(row: Record<string, any>): AuditEvent {
  return {
    id: row.id,
    changedBy: auditActorMessage(row.actor),
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id ?? undefined,
    requestId: row.request_id ?? undefined,
    organizationId: row.organization_id,
    before: row.before ?? null,
    after: row.after ?? null,
    timestamp: row.timestamp as Date,
  };
}
