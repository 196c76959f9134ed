/** Formats a slot start as a receptionist would say it: `Tue 3 Mar at 9:00 AM (America/New_York)`. */
import { parseFixedOffset } from './local-minute-of-day.js';

const MINUTE_MS = 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat | undefined {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: 'numeric',
        minute: '2-digit',
        hour12: true,
      });
    } catch {
      return undefined;
    }
    // Only valid names are cached, so the map stays as small as the set of real timezones.
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * spokenSlotTime renders an instant in the first usable timezone of `timeZones` (UTC when none is), naming that
 * timezone in parentheses.
 */
export function spokenSlotTime(epochMs: number, timeZones: readonly (string | undefined)[]): string {
  for (const tz of timeZones) {
    if (tz === undefined || tz === '') continue;
    const offset = parseFixedOffset(tz);
    if (offset !== undefined) {
      const label = offset === 0 ? 'UTC' : `UTC${tz}`;
      return `${render(epochMs + offset * MINUTE_MS, formatterFor('UTC') as Intl.DateTimeFormat)} (${label})`;
    }
    const f = formatterFor(tz);
    if (f) return `${render(epochMs, f)} (${tz})`;
  }
  return `${render(epochMs, formatterFor('UTC') as Intl.DateTimeFormat)} (UTC)`;
}

function render(epochMs: number, f: Intl.DateTimeFormat): string {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of f.formatToParts(epochMs)) parts[p.type] = p.value;
  return `${parts.weekday} ${parts.day} ${parts.month} at ${parts.hour}:${parts.minute} ${parts.dayPeriod}`;
}
