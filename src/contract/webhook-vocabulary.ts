/**
 * The webhook vocabulary of SPEC part 6 and CONTRACT part 6 as plain constants, with no zod: the schemas in
 * schemas/webhook.ts build on them, and the browser console imports them without bundling a validator.
 */

/** Every event type the service emits (SPEC part 6), in the SPEC's order. */
export const WEBHOOK_EVENT_TYPES = [
  'professional.created',
  'professional.updated',
  'provider_import.completed',
  'resolution.resolved',
  'resolution.zero_results',
  'resolution.partial',
  'option.held',
  'option.released',
  'booking.confirmed',
  'booking.rescheduled',
  'booking.cancelled',
  'booking.completed',
  'calendar.connection_degraded',
  'calendar.reconnect_required',
  'waitlist.offered',
  'waitlist.booked',
] as const;

/** An event type the service emits. */
export type WebhookEventTypeName = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Delivery statuses (CONTRACT part 6). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead_lettered', 'suppressed'] as const;
