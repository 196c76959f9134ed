import { z } from 'zod';
import { cursor, instant, isoTimestamp, nonNegativeInt, pageLimit, text } from '../fields.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventTypeName } from '../webhook-vocabulary.js';
import { jsonbKeyOrder, protoOneof, protoView } from '../proto-view.js';
import { KeyMode } from './api-key.js';
import { BookingStatus } from './booking.js';
import { ImportSummary } from './provider-import.js';
import { ResolutionStatus } from './resolution.js';
import { WebhookEventType } from './webhook.js';

/*
 * The event envelope and the data of every event type (SPEC part 6, CONTRACT part 6), as published: the items of
 * GET /api/v2/events and the `webhooks` section of openapi.json. The service builds the data in
 * src/application/event-data.ts; test/api/event-shapes.test.ts parses every type it emits with these schemas.
 */

const slot = z
  .object({ start: instant(), end: instant(), timezone: z.string().meta({ description: 'IANA time zone.' }) })
  .meta({ description: "The booking's slot: instants, and the provider's time zone." });

/** `booking.*` data, `status` fixed per type. */
function bookingData<S extends z.infer<typeof BookingStatus>, E extends z.ZodRawShape = {}>(
  status: S,
  extra: E = {} as E,
) {
  return z.object({
    bookingId: z.string(),
    resolutionId: z
      .string()
      .nullable()
      .meta({ description: 'The resolution the booking was confirmed from; null for a v1 booking.' }),
    providerId: z.string(),
    slot,
    status: z.literal(status),
    rescheduledFrom: z
      .string()
      .optional()
      .meta({ description: 'Present on a booking made by a reschedule: the original booking.' }),
    ...extra,
  });
}

/** `resolution.*` data. */
function resolutionData<S extends z.ZodType, E extends z.ZodRawShape = {}>(status: S, extra: E = {} as E) {
  return z.object({
    resolutionId: z.string(),
    status,
    optionsReturned: nonNegativeInt(),
    requestId: z.string().meta({ description: 'The X-Service-Request-Id of the request that made the resolution.' }),
    ...extra,
  });
}

const professionalData = z.object({
  providerId: z.string(),
  externalId: z.string(),
  profileVersion: nonNegativeInt(),
});

const calendarData = z.object({
  providerId: z.string(),
  calendarConnectionId: z.string(),
  reason: z.string().meta({ description: 'Why the feed failed, in words.' }),
});

/** The data of each event type, and when the service emits it. */
export const EVENT_DATA_SCHEMAS = {
  'professional.created': professionalData.meta({ description: 'A provider was created (API or import).' }),
  'professional.updated': professionalData.meta({
    description: "A provider's profile changed (PATCH, import, deactivation); `profileVersion` is the new one.",
  }),
  'provider_import.completed': z
    .object({ importId: z.string(), summary: ImportSummary })
    .meta({ description: 'A provider import finished.' }),
  'resolution.resolved': resolutionData(z.literal('resolved')).meta({
    description: 'A resolution returned at least one option.',
  }),
  'resolution.zero_results': resolutionData(z.literal('zero_results')).meta({
    description: 'A resolution returned no option.',
  }),
  'resolution.partial': resolutionData(ResolutionStatus, {
    unknownProviders: nonNegativeInt().meta({
      description: 'Providers left out because a requested constraint had no data (sent to manual review).',
    }),
  }).meta({
    description:
      'Sent beside `resolution.resolved` or `resolution.zero_results` (never instead) when some providers were unknown on a requested constraint.',
  }),
  'option.held': z
    .object({
      resolutionId: z.string(),
      optionId: z.string(),
      holdId: z.string(),
      expiresAt: instant(),
      reason: z.literal('held'),
    })
    .meta({ description: "An option's slot was held." }),
  'option.released': z
    .object({
      resolutionId: z.string(),
      optionId: z.string(),
      holdId: z.string(),
      releasedAt: instant().meta({ description: 'When the hold ended: the release, or its expiry.' }),
      reason: z.enum(['released', 'expired']),
    })
    .meta({ description: 'A hold ended: released by the client, or expired.' }),
  'booking.confirmed': bookingData('confirmed').meta({
    description: 'A booking was confirmed (v2 confirm, or the v1 e-mailed link).',
  }),
  'booking.rescheduled': bookingData('rescheduled', {
    rescheduledTo: z.string().meta({ description: 'The new booking.' }),
  }).meta({
    description:
      'A booking was rescheduled: `bookingId` is the original (now `rescheduled`), `rescheduledTo` the new booking, `slot` the new slot.',
  }),
  'booking.cancelled': bookingData('cancelled', {
    cancelledAt: instant(),
    reason: z.string().nullable().meta({ description: 'The reason given, or null.' }),
  }).meta({ description: 'A booking was cancelled.' }),
  'booking.completed': bookingData('completed').meta({
    description: "A confirmed booking's end time passed.",
  }),
  'calendar.connection_degraded': calendarData.meta({
    description: "A provider's calendar feed began to fail (its free time is no longer offered as verified).",
  }),
  'calendar.reconnect_required': calendarData.meta({
    description: "A provider's calendar feed refused access: the connection must be made again.",
  }),
  'waitlist.offered': z
    .object({
      entryId: z.string(),
      resolutionId: z.string(),
      holdId: z.string(),
      optionId: z.string(),
      providerId: z.string(),
      slotStart: instant(),
      expiresAt: instant().meta({ description: 'When the offer (its resolution and its hold) ends.' }),
    })
    .meta({
      description:
        'A waitlist entry was offered freed time: a resolution and a hold on the slot, for the usual confirm.',
    }),
  'waitlist.booked': z
    .object({ entryId: z.string(), resolutionId: z.string(), holdId: z.string(), bookingId: z.string() })
    .meta({ description: "A waitlist entry's offer was confirmed into a booking." }),
} satisfies Record<WebhookEventTypeName, z.ZodObject>;

/** The data of `webhook.test`, sent only by POST /api/v2/webhooks/test (never stored, never listed). */
export const TEST_EVENT_DATA = z
  .object({ message: z.string() })
  .meta({ description: 'A test delivery asked for with POST /api/v2/webhooks/test; never stored or listed.' });

const envelopeFields = {
  id: z.string().meta({
    description:
      'The event id (`evt_…`): stable across retries and replays, the `webhook-id` header of its deliveries. Deduplicate on it.',
  }),
  apiVersion: z.string().meta({ description: 'The version of the envelope and data shapes: `2026-11-01`.' }),
  createdAt: instant().meta({ description: 'When the change that caused the event committed.' }),
  organizationId: z.string(),
  attempt: nonNegativeInt().meta({
    description:
      "The delivery attempt this body is (1 for the first; manual replays go on after 5). Listed events carry their delivery's latest attempt, 0 when none was made (no webhook subscribed, a test-mode event, not sent yet).",
  }),
};

/** The envelope of one event type, as a webhook delivery carries it. */
export function eventEnvelopeOf(type: string, data: z.ZodType) {
  return z.object({ ...envelopeFields, type: z.literal(type), data });
}

/** An event's data as the typed API carries it: one case per event type, the one its `type` names. */
const EventData = protoOneof(z.union([z.unknown()]), {
  message: 'EventData',
  cases: (Object.keys(EVENT_DATA_SCHEMAS) as WebhookEventTypeName[]).map((type) => ({
    name: type.replace(/\./g, '_'),
    schema: EVENT_DATA_SCHEMAS[type],
    test: (_: unknown, parent: Record<string, unknown> | undefined) => parent?.type === type,
  })),
  // Events are read from their jsonb column: REST answers the data in the order deliveries carry it.
  rest: jsonbKeyOrder,
});

/** One event: exactly the envelope a webhook delivery of it carries (CONTRACT part 6 and 8). */
export const Event = z.object({
  ...envelopeFields,
  type: WebhookEventType,
  data: protoView(
    z
      .union(Object.values(EVENT_DATA_SCHEMAS) as unknown as [z.ZodObject, ...z.ZodObject[]])
      .meta({ description: "The event's data; its shape depends on `type` (openapi.json `webhooks` gives each)." }),
    { schema: EventData, name: 'event_data' },
  ),
});

/** Query of GET /api/v2/events. */
export const ListEventsQuery = z.object({
  type: WebhookEventType.optional().meta({ description: 'Only events of this type.' }),
  since: isoTimestamp()
    .optional()
    .meta({ description: 'Only events created at or after this instant (events are kept 30 days).' }),
  mode: KeyMode.optional().meta({
    description:
      'Only events caused with keys of this mode. Webhooks deliver only live events; test events are listed too unless `mode=live`.',
  }),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** Path of GET /api/v2/events/:id. */
export const EventPath = z.object({ id: text(200, 1) });

/** Every event type with a published envelope, `webhook.test` included. */
export const WEBHOOK_ENVELOPES: readonly { type: string; data: z.ZodObject }[] = [
  ...WEBHOOK_EVENT_TYPES.map((type) => ({ type, data: EVENT_DATA_SCHEMAS[type] as z.ZodObject })),
  { type: 'webhook.test', data: TEST_EVENT_DATA },
];
