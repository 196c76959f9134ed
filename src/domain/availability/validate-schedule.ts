import { isValidDate } from './local-date.js';
import { parseWallClock } from './wall-clock.js';
import { isValidTimezone } from './zone-day.js';

export { isValidDate } from './local-date.js';
export { isValidTimezone } from './zone-day.js';

/** One problem found in a schedule; `field` is a dotted path such as `days.monday.slots.1.end`. */
export interface ScheduleProblem {
  field: string;
  code: 'VALIDATION_ERROR';
  message: string;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/**
 * Validates a schedule input (`timezone`, `days`, optional `overrides`) and lists every problem; empty when valid.
 * Times are `HH:MM` from 00:00 to 23:59, an end may be `24:00`; each window starts before it ends and the windows
 * of one day (or one override) do not overlap, though they may touch.
 */
export function validateSchedule(input: unknown): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  const report = (field: string, message: string): void => {
    problems.push({ field, code: 'VALIDATION_ERROR', message });
  };
  if (!isRecord(input)) {
    report('', 'The schedule must be an object.');
    return problems;
  }

  if (input.timezone === undefined) report('timezone', 'timezone is required.');
  else if (!isValidTimezone(input.timezone)) {
    report('timezone', 'timezone must be an IANA time zone such as "America/New_York".');
  }

  if (input.days === undefined) report('days', 'days is required.');
  else if (!isRecord(input.days)) report('days', 'days must be an object keyed by weekday.');
  else {
    for (const [key, value] of Object.entries(input.days)) {
      const field = `days.${key}`;
      if (!(WEEKDAYS as readonly string[]).includes(key)) {
        report(field, `Unknown day "${key}"; use ${WEEKDAYS.join(', ')}.`);
        continue;
      }
      if (!isRecord(value)) {
        report(field, 'Each day must be {enabled, slots}.');
        continue;
      }
      if (typeof value.enabled !== 'boolean') report(`${field}.enabled`, 'enabled must be true or false.');
      validateWindows(value.slots, `${field}.slots`, report);
    }
  }

  if (input.overrides !== undefined) {
    if (!Array.isArray(input.overrides)) report('overrides', 'overrides must be an array of {date, slots}.');
    else {
      const seen = new Set<string>();
      input.overrides.forEach((override: unknown, index) => {
        const field = `overrides.${index}`;
        if (!isRecord(override)) {
          report(field, 'Each override must be {date, slots}.');
          return;
        }
        if (!isValidDate(override.date)) report(`${field}.date`, 'date must be a real calendar date YYYY-MM-DD.');
        else if (seen.has(override.date))
          report(`${field}.date`, `Only one override per date; ${override.date} repeats.`);
        else seen.add(override.date);
        validateWindows(override.slots, `${field}.slots`, report);
      });
    }
  }
  return problems;
}

function validateWindows(slots: unknown, field: string, report: (field: string, message: string) => void): void {
  if (!Array.isArray(slots)) {
    report(field, 'slots must be an array of {start, end}.');
    return;
  }
  const parsed: { start: number; end: number; index: number }[] = [];
  slots.forEach((slot: unknown, index) => {
    const at = `${field}.${index}`;
    if (!isRecord(slot)) {
      report(at, 'Each slot must be {start, end}.');
      return;
    }
    const start = parseWallClock(slot.start);
    const end = parseWallClock(slot.end, true);
    if (start === undefined) report(`${at}.start`, 'start must be HH:MM between 00:00 and 23:59.');
    if (end === undefined) report(`${at}.end`, 'end must be HH:MM between 00:01 and 24:00.');
    if (start === undefined || end === undefined) return;
    if (start >= end) {
      report(`${at}.end`, `end (${String(slot.end)}) must be after start (${String(slot.start)}).`);
      return;
    }
    parsed.push({ start, end, index });
  });
  parsed.sort((a, b) => a.start - b.start);
  for (let i = 1; i < parsed.length; i += 1) {
    const previous = parsed[i - 1];
    const current = parsed[i];
    if (previous !== undefined && current !== undefined && current.start < previous.end) {
      const later = Math.max(previous.index, current.index);
      report(`${field}.${later}`, `Overlaps slot ${Math.min(previous.index, current.index)} of the same day.`);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
