import type { AttemptRow, DeliveryRow, WebhookRow } from '../../persistence/webhook-repository.js';
import {
  DeliveryStatus,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryDetail,
  type Webhook,
} from '../../gen/scheduling/v1/resources.js';

/** A delivery's status as the typed API names it. */
export const DELIVERY_STATUS: Record<DeliveryRow['status'], DeliveryStatus> = {
  pending: DeliveryStatus.DELIVERY_STATUS_PENDING,
  delivered: DeliveryStatus.DELIVERY_STATUS_DELIVERED,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
  dead_lettered: DeliveryStatus.DELIVERY_STATUS_DEAD_LETTERED,
  suppressed: DeliveryStatus.DELIVERY_STATUS_SUPPRESSED,
};

/** The `Webhook` message of a configuration row: never its secrets. */
export function webhookMessage(w: WebhookRow): Webhook {
  return { url: w.url, events: [...w.events], active: w.active, createdAt: w.createdAt };
}

/**
 * The `Delivery` message of a delivery row (CONTRACT part 6): its latest attempt's status code, latency and success
 * unset before any attempt, `timestamp` the latest attempt's time or, before one, when the delivery was recorded.
 */
export function deliveryMessage(d: DeliveryRow): Delivery {
  const attempted = d.lastAttemptAt !== null;
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.eventType,
    deliveryStatus: DELIVERY_STATUS[d.status],
    attempt: d.attempt,
    statusCode: attempted && d.statusCode !== null ? d.statusCode : undefined,
    latencyMs: attempted && d.latencyMs !== null ? d.latencyMs : undefined,
    timestamp: d.lastAttemptAt ?? d.createdAt,
    success: attempted && d.success !== null ? d.success : undefined,
    nextAttemptAt: d.nextAttemptAt ?? undefined,
  };
}

/** The `DeliveryAttempt` message of an attempt row; `error` unset when the attempt gave none. */
export function deliveryAttemptMessage(a: AttemptRow): DeliveryAttempt {
  return {
    attempt: a.attempt,
    statusCode: a.statusCode ?? undefined,
    latencyMs: a.latencyMs,
    timestamp: a.attemptedAt,
    success: a.success,
    manual: a.manual,
    error: a.error ?? undefined,
  };
}

/** The `DeliveryDetail` message: a delivery with every attempt, oldest first. */
export function deliveryDetailMessage(d: DeliveryRow, attempts: AttemptRow[]): DeliveryDetail {
  return { ...deliveryMessage(d), attempts: attempts.map(deliveryAttemptMessage) };
}
