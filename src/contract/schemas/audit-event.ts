import { z } from 'zod';
import { cursor, queryInt, text } from '../fields.js';

/** Who made a change: an API key, or a background worker / operator tool (`{type: "system"}`). */
export const AuditActor = z.union([
  z.object({ keyId: z.string(), keyType: z.string() }),
  z.object({ type: z.literal('system') }),
]);

/** One immutable audit event (CONTRACT part 7). */
export const AuditEvent = z.object({
  id: z.string(),
  actor: AuditActor,
  action: z.string().meta({ description: '`<resource>.<verb>`, e.g. `provider.create`.' }),
  resource_type: z.string(),
  resource_id: z.string().nullable(),
  request_id: z.string().nullable().meta({ description: 'The X-Service-Request-Id of the request that caused the event.' }),
  organization_id: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  timestamp: z.string(),
});

/** Query of GET /api/v2/audit-events. */
export const ListAuditEventsQuery = z.object({
  action: text(200, 1).optional(),
  resource_type: text(200, 1).optional(),
  resource_id: text(200, 1).optional(),
  limit: queryInt(1, 500).optional(),
  cursor: cursor().optional(),
});
