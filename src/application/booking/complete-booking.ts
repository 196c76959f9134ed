import { findBooking } from '../../persistence/booking-repository.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import { stepBooking, type StepBookingDeps } from './step-booking.js';
import { bookingEventData, outboxEvent } from '../event-data.js';
import { endClaimLocked } from '../../persistence/slot-claims.js';
import { SYSTEM_CAUSE } from '../step-cause.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

/**
 * The durable `booking|complete` timer: a confirmed booking whose end time has passed becomes `completed`
 * (decided by the booking machine, so a late, early or repeated timer changes nothing), its claim ends,
 * booking.completed is stored and a system audit event recorded, in the step's transaction (`stepBooking`).
 */
export async function completeBooking(deps: StepBookingDeps, bookingId: string): Promise<void> {
  const now = deps.clock();
  // Lock order (slot-claims.ts): the booking row, the event, then the claim ended under the provider's claim lock
  // with the audit entry.
  await stepBooking(
    deps,
    { type: 'COMPLETE', at: now.toISOString() },
    {
      causedBy: SYSTEM_CAUSE,
      load: (tx) => findBooking(tx, bookingId, { forUpdate: true }),
      commit: async (tx, row, after) => {
        await storeEvent(
          tx,
          outboxEvent('booking.completed', bookingEventData('booking.completed', after), {
            platformId: row.platform_id,
            organizationId: row.organization_id,
            mode: row.mode,
            createdAt: now,
          }),
        );
        await endClaimLocked(tx, {
          providerId: row.provider_id,
          refId: bookingId,
          reason: 'completed',
          now,
          audit: {
            platformId: row.platform_id,
            organizationId: row.organization_id,
            actor: { type: 'system' },
            ...AUDIT_ACTIONS.bookingComplete,
            resourceId: bookingId,
            requestId: null,
            before: { status: row.status },
            after: { status: after.status },
            timestamp: now,
          },
        });
      },
    },
  );
}
