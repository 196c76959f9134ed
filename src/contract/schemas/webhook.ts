import { z } from 'zod';
import { cursor, instant, nonNegativeInt, pageLimit, text } from '../fields.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../webhook-vocabulary.js';

/** An event type of SPEC part 6. */
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

/** A delivery status: `failed` means a retry is scheduled; `suppressed` is a test-mode event, never sent. */
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);

/** Body of PUT /api/v2/webhooks. */
export const UpdateWebhookBody = z.object({
  url: text(1000, 1).meta({
    description:
      'Where events are POSTed: `https://` only, and never a loopback, private, link-local or unique-local address (checked here and again at every connection). `WEBHOOK_ALLOW_INSECURE_URLS=1` (development) also allows `http://` and such targets.',
  }),
  events: z
    .array(z.union([z.literal('*'), WebhookEventType]))
    .min(1)
    .max(100)
    .refine((e) => !e.includes('*') || e.length === 1, { message: '`*` (every event type) must stand alone' })
    .meta({
      description:
        'Event types to deliver, or `["*"]` for all of them. An unknown type is 400 VALIDATION_ERROR on `events.<index>`.',
    }),
  active: z.boolean().optional().meta({ description: 'Default true. An inactive webhook records no deliveries.' }),
  rotateSecret: z.boolean().optional().meta({
    description:
      'true: make a new secret and return it once; the previous secret keeps signing alongside it for 24 hours.',
  }),
});

/** The webhook configuration as answered (never its secret). */
export const Webhook = z.object({
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  createdAt: instant(),
});

/** Answer of PUT /api/v2/webhooks: the configuration, plus the secret when one was just made. */
export const UpdatedWebhook = Webhook.extend({
  secret: z.string().optional().meta({
    description:
      '`whsec_<base64 of 32 random bytes>`; the HMAC key is the decoded bytes. Present only on the first set-up and on rotation: store it then, it is never shown again.',
  }),
});

/** Answer of POST /api/v2/webhooks/test. */
export const WebhookTestResult = z.object({
  delivered: z.boolean().meta({ description: 'true when the receiver answered 2xx within 10 s.' }),
  statusCode: nonNegativeInt().nullable().meta({
    description:
      "The receiver's HTTP status; null when it gave no answer (timeout, refused connection, blocked target).",
  }),
  latencyMs: nonNegativeInt(),
});

/** Query of GET /api/v2/webhooks/deliveries. */
export const ListDeliveriesQuery = z.object({
  status: DeliveryStatus.optional(),
  event: WebhookEventType.optional(),
  limit: pageLimit().meta({ description: 'Page size, default 50, at most 500.' }),
  cursor: cursor().optional(),
});

/** Path of /api/v2/webhooks/deliveries/:id and its replay. */
export const DeliveryPath = z.object({ id: text(200, 1) });

/** Path of POST /api/v2/webhooks/:deliveryId/replay. */
export const QueuedReplayPath = z.object({ deliveryId: text(200, 1) });

/** One delivery record: one per event and webhook, updated by every attempt (CONTRACT part 6). */
export const Delivery = z.object({
  id: z.string(),
  eventId: z.string().meta({
    description: 'The event id: the envelope `id` and the `webhook-id` header, stable across retries and replays.',
  }),
  event: z.string().meta({ description: 'The event type.' }),
  status: DeliveryStatus,
  attempt: nonNegativeInt().meta({
    description: 'Number of the latest attempt (0 before the first); manual replays go on numbering after 5.',
  }),
  statusCode: nonNegativeInt().nullable().meta({
    description: 'HTTP status of the latest attempt; null before any attempt and when the receiver gave no answer.',
  }),
  latencyMs: nonNegativeInt()
    .nullable()
    .meta({ description: 'Duration of the latest attempt; null before any attempt.' }),
  timestamp: instant().meta({
    description: 'Time of the latest attempt, or when the delivery was recorded if none was made yet.',
  }),
  success: z
    .boolean()
    .nullable()
    .meta({ description: 'Whether the latest attempt got a 2xx; null before any attempt.' }),
  nextAttemptAt: instant()
    .nullable()
    .meta({ description: 'When the next attempt is due (status `pending` or `failed`); null otherwise.' }),
});

/** Answer of GET /api/v2/webhooks/deliveries. */
export const DeliveryList = z.object({
  deliveries: z.array(Delivery),
  total: nonNegativeInt().meta({ description: 'Deliveries matching the filters, over all pages.' }),
  nextCursor: z.string().nullable(),
});

/** One attempt of a delivery. */
export const DeliveryAttempt = z.object({
  attempt: nonNegativeInt(),
  statusCode: nonNegativeInt().nullable().meta({ description: 'null when the receiver gave no answer.' }),
  latencyMs: nonNegativeInt(),
  timestamp: instant(),
  success: z.boolean(),
  manual: z.boolean().meta({ description: 'true for a replay asked for through the API.' }),
  error: z
    .string()
    .optional()
    .meta({ description: 'Why the attempt failed, when it did (timeout, connection error, non-2xx, blocked target).' }),
});

/** Answer of GET /api/v2/webhooks/deliveries/:id. */
export const DeliveryDetail = Delivery.extend({ attempts: z.array(DeliveryAttempt) });

/** Answer of POST /api/v2/webhooks/deliveries/:id/replay (sent now). */
export const ReplayResult = z.object({
  delivered: z.boolean(),
  statusCode: nonNegativeInt().nullable().meta({ description: 'null when the receiver gave no answer.' }),
  latencyMs: nonNegativeInt(),
  replayedAt: instant(),
  attempt: nonNegativeInt().meta({ description: 'The number this attempt carries.' }),
});

/** Answer of POST /api/v2/webhooks/:deliveryId/replay (queued). */
export const QueuedReplay = z.object({
  deliveryId: z.string(),
  status: z.literal('pending'),
  attempt: nonNegativeInt().meta({ description: 'The number the queued attempt will carry (the latest + 1).' }),
});
