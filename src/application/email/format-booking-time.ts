import { DateTime } from 'luxon';

/** Writes a booking's time span for people, e.g. `Monday, March 2, 2026, 9:00 AM - 10:00 AM EST`, in `zone`. */
export function formatBookingTime(start: Date, end: Date, zone: string): string {
  const s = DateTime.fromJSDate(start, { zone });
  const e = DateTime.fromJSDate(end, { zone });
  const sameDay = s.toISODate() === e.toISODate();
  const endText = sameDay ? e.toFormat('h:mm a ZZZZ') : e.toFormat('cccc, LLLL d, yyyy, h:mm a ZZZZ');
  return `${s.toFormat('cccc, LLLL d, yyyy, h:mm a')} - ${endText} (${zone})`;
}
