import { createHash, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../errors/service-error.js';
import { appendAudit } from '../../persistence/audit-log.js';
import { findBooking, type BookingRow } from '../../persistence/booking-repository.js';
import { storeEvent } from '../../persistence/event-outbox.js';
import type { Caller } from '../caller.js';
import { stepCause } from '../step-cause.js';
import { escapeHtml } from '../email/escape-html.js';
import { formatBookingTime } from '../email/format-booking-time.js';
import { htmlLayout } from '../email/html-layout.js';
import { stepBooking, type StepBookingDeps } from './step-booking.js';
import { bookingTitle } from './booking-views.js';
import { bookingEventData, outboxEvent } from '../event-data.js';
import { AUDIT_ACTIONS } from '../audit/audit-actions.js';

/** Compares a presented token with the stored one in constant time (hashing first makes the lengths equal). */
export function tokenMatches(presented: string, stored: string | null): boolean {
  if (!stored) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(stored).digest();
  return timingSafeEqual(a, b);
}

/** The small page a person sees after following the link. */
export function confirmationPage(b: BookingRow): string {
  const title = bookingTitle(b);
  const heading = b.status === 'completed' ? 'This booking has taken place' : 'Your booking is confirmed';
  return htmlLayout(
    heading,
    [
      `<h1 style="font-size:1.4rem">${escapeHtml(heading)}</h1>`,
      `<p><strong>${escapeHtml(title)}</strong><br>${escapeHtml(formatBookingTime(b.start_at, b.end_at, b.customer.timezone ?? b.timezone))}</p>`,
      `<p style="font-size:.9em;color:#52606d">Booking reference: ${escapeHtml(b.id)}</p>`,
    ].join('\n'),
  );
}

/**
 * GET /api/v1/bookings/:id/confirm?token=...: the e-mailed link (no API key; the token is the credential).
 * Confirms a pending booking through the booking machine (event booking.confirmed, system audit), and answers
 * the booking as it stands (the RPC answers a small HTML page of it, confirmationPage, or `{bookingId, status}` when
 * the request accepts JSON). Following it again is still 200; an unknown id or a wrong token is 404
 * BOOKING_NOT_FOUND; a cancelled or rescheduled booking is 409.
 */
export async function confirmBookingV1(
  deps: StepBookingDeps,
  caller: Caller,
  link: { id: string; token: string },
): Promise<BookingRow> {
  const { id, token } = link;
  const found = await findBooking(deps.db, id);
  // Same answer for an unknown id and a wrong token: the link reveals nothing without its token.
  if (!found || !tokenMatches(token, found.confirm_token)) throw new ServiceError('BOOKING_NOT_FOUND');
  const now = deps.clock();
  const event = { type: 'CONFIRM' as const, at: now.toISOString() };
  // Lock order (slot-claims.ts) step 1 only: the booking row, then its event and audit entry; no claim changes, so no
  // claim lock (a confirmed booking keeps the claim its pending booking made).
  const outcome = (await stepBooking(deps, event, {
    causedBy: stepCause(caller),
    load: (tx) => findBooking(tx, id, { forUpdate: true }),
    commit: async (tx, row, updated) => {
      await storeEvent(
        tx,
        outboxEvent('booking.confirmed', bookingEventData('booking.confirmed', updated), {
          platformId: row.platform_id,
          organizationId: row.organization_id,
          mode: row.mode,
          createdAt: now,
        }),
      );
      await appendAudit(tx, {
        platformId: row.platform_id,
        organizationId: row.organization_id,
        actor: { type: 'system' },
        ...AUDIT_ACTIONS.bookingConfirm,
        resourceId: id,
        requestId: caller.requestId,
        before: { status: row.status },
        after: { status: updated.status, via: 'confirmation_link' },
        timestamp: now,
      });
    },
  }))!;
  const status = outcome.row.status;
  if (status === 'cancelled' || status === 'rescheduled') {
    throw new ServiceError('BOOKING_STATE_CONFLICT', `The booking was ${status} and can no longer be confirmed.`);
  }
  return outcome.row;
}
