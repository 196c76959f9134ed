import {
  ManualReviewStatus as ManualReviewStatusMessage,
  WaitlistStatus as WaitlistStatusMessage,
  type ContinuityRecord as ContinuityRecordMessage,
  type ManualReviewEntry,
  type WaitlistEntry,
} from '../../gen/scheduling/v1/resources.js';
import type { ContinuityRecord } from '../../persistence/continuity-repository.js';
import type { WaitlistEntryRecord, WaitlistEntryStatus } from '../../persistence/waitlist-repository.js';
import type { ManualReviewEntryRecord, ManualReviewStatus } from '../../persistence/manual-review-repository.js';

/** A waitlist status as the message names it. */
export const WAITLIST_STATUS_MESSAGE: Record<WaitlistEntryStatus, WaitlistStatusMessage> = {
  waiting: WaitlistStatusMessage.WAITLIST_STATUS_WAITING,
  offered: WaitlistStatusMessage.WAITLIST_STATUS_OFFERED,
  booked: WaitlistStatusMessage.WAITLIST_STATUS_BOOKED,
  cancelled: WaitlistStatusMessage.WAITLIST_STATUS_CANCELLED,
};

/** A manual-review status as the message names it. */
export const MANUAL_REVIEW_STATUS_MESSAGE: Record<ManualReviewStatus, ManualReviewStatusMessage> = {
  open: ManualReviewStatusMessage.MANUAL_REVIEW_STATUS_OPEN,
  resolved: ManualReviewStatusMessage.MANUAL_REVIEW_STATUS_RESOLVED,
};

/** The `ContinuityRecord` message of a continuity row; never seen: `last_seen_at` unset. */
export function continuityMessage(c: ContinuityRecord): ContinuityRecordMessage {
  return {
    id: c.id,
    providerId: c.providerId,
    clientRef: c.clientRef,
    lastSeenAt: c.lastSeenAt === null ? undefined : new Date(c.lastSeenAt),
    createdAt: new Date(c.createdAt),
  };
}

/**
 * The `WaitlistEntry` message of an entry: its constraints and preferences as they were stored (free-form objects),
 * the offer while it is offered or booked; what is null left unset.
 */
export function waitlistEntryMessage(w: WaitlistEntryRecord): WaitlistEntry {
  return {
    id: w.id,
    waitlistStatus: WAITLIST_STATUS_MESSAGE[w.status],
    serviceId: w.serviceId,
    customer: { name: w.customer.name, email: w.customer.email },
    constraints: w.constraints ?? undefined,
    preferences: w.preferences ?? undefined,
    resolutionId: w.resolutionId ?? undefined,
    offer:
      w.offer === null
        ? undefined
        : {
            resolutionId: w.offer.resolutionId,
            holdId: w.offer.holdId,
            optionId: w.offer.optionId,
            providerId: w.offer.providerId,
            slotStart: new Date(w.offer.slotStart),
            expiresAt: new Date(w.offer.expiresAt),
          },
    offersMade: w.offersMade,
    createdAt: new Date(w.createdAt),
    updatedAt: new Date(w.updatedAt),
    cancelledAt: w.cancelledAt === null ? undefined : new Date(w.cancelledAt),
  };
}

/** The `ManualReviewEntry` message of a queue entry; an open one leaves `resolved_at` unset. */
export function manualReviewMessage(e: ManualReviewEntryRecord): ManualReviewEntry {
  return {
    providerId: e.providerId,
    displayName: e.displayName,
    reasons: e.reasons.map((r) => ({ code: r.code, field: r.field, detail: r.detail })),
    firstSeenAt: new Date(e.firstSeenAt),
    lastSeenAt: new Date(e.lastSeenAt),
    manualReviewStatus: MANUAL_REVIEW_STATUS_MESSAGE[e.status],
    resolvedAt: e.resolvedAt === null ? undefined : new Date(e.resolvedAt),
  };
}
