import type { Config } from '../../config/load-config.js';
import type { BookingRow } from '../../persistence/booking-repository.js';
import type { Queryable } from '../../persistence/database.js';
import { confirmationUrl } from '../booking/booking-views.js';
import { renderCancellationEmail } from './cancellation-email.js';
import { renderConfirmationEmail } from './confirmation-email.js';
import { enqueueEmail } from '../../persistence/email-outbox.js';

/** Which booking e-mail to send. */
export type BookingEmailKind = 'booking_confirmation' | 'booking_cancellation';

/**
 * Renders a booking e-mail to the attendee and stores it in the outbox inside the caller's transaction.
 * It goes out only for a live-mode action with SMTP_URL set (CONTRACT part 2); otherwise it is only stored.
 */
export async function queueBookingEmail(
  tx: Queryable,
  p: {
    config: Pick<Config, 'publicBaseUrl' | 'smtpUrl'>;
    booking: BookingRow;
    kind: BookingEmailKind;
    mode: 'live' | 'test';
    now: Date;
    reason?: string | null;
  },
): Promise<string> {
  const b = p.booking;
  const message =
    p.kind === 'booking_confirmation'
      ? renderConfirmationEmail(
          b,
          confirmationUrl(p.config.publicBaseUrl, b) ?? `${p.config.publicBaseUrl}/api/v1/bookings/${b.id}`,
        )
      : renderCancellationEmail(b, p.reason ?? null);
  return enqueueEmail(tx, {
    platformId: b.platform_id,
    organizationId: b.organization_id,
    bookingId: b.id,
    kind: p.kind,
    mode: p.mode,
    to: b.customer.email,
    message,
    deliver: p.mode === 'live' && p.config.smtpUrl !== undefined,
    now: p.now,
  });
}
