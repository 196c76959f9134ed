import { z } from 'zod';
import { cursor, instant, nonNegativeInt, pageLimit, queryInt, text } from '../fields.js';
import { protoOneof, protoView } from '../proto-view.js';

/** Who made a change: an API key, or a background worker / operator tool (`{type: "system"}`). */
export const AuditActor = z.union([
  z.object({ keyId: z.string(), keyType: z.string() }),
  z.object({ type: z.literal('system') }),
]);

/** Who made a change, as the typed API carries it: an API key, or the service itself. */
const AuditActorCases = protoOneof(z.union([AuditActor]), {
  message: 'AuditActor',
  cases: [
    {
      name: 'api_key',
      schema: AuditActor.options[0].meta({ description: 'The API key (id and type) the change was made with.' }),
      test: (v) => typeof v === 'object' && v !== null && 'keyId' in v,
    },
    {
      name: 'system',
      schema: AuditActor.options[1].meta({ description: 'A background worker or operator tool (`type` is `system`).' }),
      test: (v) => typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'system',
    },
  ],
});

/** One immutable audit event (CONTRACT part 7). */
export const AuditEvent = z.object({
  id: z.string(),
  actor: protoView(AuditActor, { schema: AuditActorCases, name: 'changed_by' }),
  action: z.string().meta({ description: '`<resource>.<verb>`, e.g. `provider.create`.' }),
  resource_type: z.string(),
  resource_id: z.string().nullable(),
  request_id: z
    .string()
    .nullable()
    .meta({ description: 'The X-Service-Request-Id of the request that caused the event.' }),
  organization_id: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  timestamp: instant(),
});

/** Query of GET /api/v2/audit-events. */
export const ListAuditEventsQuery = z.object({
  action: text(200, 1).optional(),
  resource_type: text(200, 1).optional(),
  resource_id: text(200, 1).optional(),
  limit: pageLimit(),
  cursor: cursor().optional(),
});

/** Query of GET /api/v2/audit-events/verification. */
export const VerifyAuditChainQuery = z.object({
  limit: queryInt(1, 50_000).optional().meta({
    description:
      'How many of the latest chain links (and of the latest events, for unlinked ones) to verify; default 10,000, at most 50,000. `npm run audit:verify` checks whole chains.',
  }),
});

/** Answer of GET /api/v2/audit-events/verification. */
export const AuditChainVerification = z.object({
  status: z.enum(['intact', 'broken']),
  checked: nonNegativeInt().meta({ description: 'Events read, linked or not.' }),
  linked: nonNegativeInt(),
  pending: nonNegativeInt().meta({
    description: 'Events the sequencer has not linked yet (shortly after they are written): not a break.',
  }),
  breaks: z.array(z.object({ eventId: z.string(), reason: z.string() })),
  fromPosition: nonNegativeInt().meta({ description: 'First chain position verified (0 when the chain is empty).' }),
  toPosition: nonNegativeInt().meta({ description: "Last chain position verified: the chain's head." }),
  complete: z
    .boolean()
    .meta({ description: 'true when the whole chain from position 1 was verified (it had at most `limit` links).' }),
  verifiedAt: instant(),
});
