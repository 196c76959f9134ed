import type { BookingRow } from '../../persistence/booking-repository.js';
import { bookingTitle } from '../booking/booking-views.js';
import { escapeHtml } from './escape-html.js';
import type { EmailMessage } from './email-message.js';
import { formatBookingTime } from './format-booking-time.js';
import { htmlLayout } from './html-layout.js';

/** Renders the notice telling the attendee that a booking was cancelled (with the reason, when one was given). */
export function renderCancellationEmail(b: BookingRow, reason: string | null): EmailMessage {
  const title = bookingTitle(b);
  const when = formatBookingTime(b.start_at, b.end_at, b.customer.timezone ?? b.timezone);
  const subject = `Booking cancelled: ${title}`;
  const text = [
    `Hello ${b.customer.name},`,
    '',
    `Your booking ${title} on ${when} has been cancelled.`,
    ...(reason ? [`Reason: ${reason}`] : []),
    '',
    `Booking reference: ${b.id}`,
  ].join('\n');
  const html = htmlLayout(
    subject,
    [
      `<p>Hello ${escapeHtml(b.customer.name)},</p>`,
      `<p>Your booking <strong>${escapeHtml(title)}</strong> on ${escapeHtml(when)} has been cancelled.</p>`,
      ...(reason ? [`<p>Reason: ${escapeHtml(reason)}</p>`] : []),
      `<p style="font-size:.9em;color:#52606d">Booking reference: ${escapeHtml(b.id)}</p>`,
    ].join('\n'),
  );
  return { subject, text, html };
}
