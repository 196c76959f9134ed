import { AUDIT_ACTIONS } from '../audit/audit-actions.js';
import { outboxEvent, waitlistBookedData } from '../event-data.js';
import { stepWaitlistEntry, type StepWaitlistEntryDeps } from './step-waitlist-entry.js';

/**
 * Books the entry whose offer's resolution was confirmed (the machine's BOOK, guarded on that resolution), with its
 * `waitlist.booked` event; a repeated BOOK changes nothing. Called after a confirm commits, and by the lapse timer
 * when it finds the offer's hold consumed.
 */
export async function bookOffer(
  deps: StepWaitlistEntryDeps,
  entryId: string,
  b: { resolutionId: string; bookingId: string; at: string },
): Promise<void> {
  await stepWaitlistEntry(
    deps,
    entryId,
    { type: 'BOOK', resolutionId: b.resolutionId, bookingId: b.bookingId, at: b.at },
    {
      audit: AUDIT_ACTIONS.waitlistEntryBook,
      eventOf: (before, after, caller) =>
        after.offer
          ? outboxEvent('waitlist.booked', waitlistBookedData(before.entry.id, after.offer, b.bookingId), {
              platformId: before.platformId,
              organizationId: before.organizationId,
              mode: caller.mode,
              createdAt: new Date(b.at),
            })
          : undefined,
    },
  );
}
