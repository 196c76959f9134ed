/** The local date of an instant in a time zone. */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The `YYYY-MM-DD` date an instant (epoch ms) falls on in `zone`'s wall clock. */
export function localDateAt(epochMs: number, zone: string): string {
  let format = formatters.get(zone);
  if (format === undefined) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    // Bounded: a few hundred zones exist.
    if (formatters.size > 1000) formatters.clear();
    formatters.set(zone, format);
  }
  return format.format(epochMs);
}
