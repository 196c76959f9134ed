/**
 * The audit actions of reads: the operations the service records with kind `read` (a call made with
 * Service-Organization-Id leaves one of these even when it changes nothing). `test/console/audit-reads.test.ts` checks
 * this list against the service's operation table, so a new read cannot be missed.
 */
export const READ_ACTIONS: ReadonlySet<string> = new Set([
  'analytics.network_adequacy.read',
  'analytics.read',
  'api_key.list',
  'audit_chain.verify',
  'audit_event.list',
  'booking.list',
  'booking.read',
  'calendar_connection.list',
  'calendar_connection.read',
  'caller.read',
  'continuity.list',
  'credentials.check',
  'event.list',
  'event.read',
  'hold.read',
  'inspector.actor.read',
  'inspector.actor.watch',
  'inspector.machine.read',
  'inspector.machines.list',
  'manual_review.list',
  'organization.list',
  'organization.overview',
  'organization.read',
  'provider.list',
  'provider.read',
  'provider_import.list',
  'provider_import.read',
  'ranking_policy.list',
  'ranking_policy.read',
  'ranking_policy.simulate',
  'request.refuse',
  'resolution.candidates',
  'resolution.list',
  'resolution.read',
  'service.list',
  'service.read',
  'slot.list',
  'waitlist_entry.list',
  'webhook.read',
  'webhook.test',
  'webhook_delivery.list',
  'webhook_delivery.read',
]);

/**
 * Whether an audit event records a read that succeeded: a read action whose `after` carries no error. A refused read
 * (`after.error`, such as every `request.refuse`) stays visible with the writes: it may be someone probing.
 */
export function isSuccessfulRead(e: { action: string; after: unknown }): boolean {
  if (!READ_ACTIONS.has(e.action)) return false;
  const after = e.after as { error?: unknown } | null | undefined;
  return !(after && typeof after === 'object' && 'error' in after);
}
