import type { BookingRow } from '../../persistence/booking-repository.js';
import { bookingTitle } from '../booking/booking-views.js';
import { escapeHtml } from './escape-html.js';
import type { EmailMessage } from './email-message.js';
import { formatBookingTime } from './format-booking-time.js';
import { htmlLayout } from './html-layout.js';

/** Renders the e-mail asking the attendee of a pending v1 booking to confirm it by following `confirmationUrl`. */
export function renderConfirmationEmail(b: BookingRow, confirmationUrl: string): EmailMessage {
  const title = bookingTitle(b);
  const when = formatBookingTime(b.start_at, b.end_at, b.customer.timezone ?? b.timezone);
  const subject = `Please confirm your booking: ${title}`;
  const text = [
    `Hello ${b.customer.name},`,
    '',
    `You requested a booking: ${title}.`,
    `When: ${when}`,
    '',
    'Please confirm it by opening this link:',
    confirmationUrl,
    '',
    'If you did not request this booking, ignore this e-mail; it stays unconfirmed.',
    `Booking reference: ${b.id}`,
  ].join('\n');
  const html = htmlLayout(
    subject,
    [
      `<p>Hello ${escapeHtml(b.customer.name)},</p>`,
      `<p>You requested a booking: <strong>${escapeHtml(title)}</strong>.<br>When: ${escapeHtml(when)}</p>`,
      `<p><a href="${escapeHtml(confirmationUrl)}" style="display:inline-block;padding:.6rem 1.2rem;background:#2563eb;color:#fff;text-decoration:none;border-radius:4px">Confirm booking</a></p>`,
      `<p style="font-size:.9em">Or open this link: <a href="${escapeHtml(confirmationUrl)}">${escapeHtml(confirmationUrl)}</a></p>`,
      `<p style="font-size:.9em;color:#52606d">If you did not request this booking, ignore this e-mail; it stays unconfirmed. Booking reference: ${escapeHtml(b.id)}</p>`,
    ].join('\n'),
  );
  return { subject, text, html };
}
