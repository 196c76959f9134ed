import ICAL from 'ical.js';
import { normalizeBusy, type Interval } from './busy-intervals.js';
import { dateOfDayNumber, dayNumberOf } from './local-date.js';
import { isValidTimezone, rfc5545Instant, zoneDay } from './zone-day.js';

type IcalComponent = InstanceType<typeof ICAL.Component>;
type IcalTime = InstanceType<typeof ICAL.Time>;
type IcalProperty = InstanceType<typeof ICAL.Property>;

/** Why an iCalendar feed could not be turned into busy time. */
export type IcsErrorCode = 'ICS_UNPARSEABLE' | 'ICS_UNKNOWN_TIMEZONE' | 'ICS_TOO_COMPLEX';

/** A feed that cannot be read; the caller must treat the calendar as unverifiable, never as free. */
export class IcsParseError extends Error {
  readonly code: IcsErrorCode;
  constructor(code: IcsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IcsParseError';
    this.code = code;
  }
}

/** Options of parseIcsBusyTimes. */
export interface IcsBusyOptions {
  /**
   * IANA zone for floating times and all-day dates when the feed names none (`X-WR-TIMEZONE`); pass the
   * schedule's timezone. Default UTC.
   */
  defaultZone?: string;
  /** Most occurrences expanded per recurring event before giving up with ICS_TOO_COMPLEX. Default 50,000. */
  maxOccurrencesPerEvent?: number;
}

const MS_PER_SECOND = 1000;

/**
 * Busy time of an iCalendar feed that overlaps `[windowStart, windowEnd)`, sorted and merged.
 *
 * Recurring events are expanded in wall-clock time (RRULE, RDATE), minus EXDATEs; an instance overridden by a
 * RECURRENCE-ID component takes that component's times instead (or vanishes when it is cancelled). Each instance
 * lasts as long as the master event. Events with `TRANSP:TRANSPARENT` or `STATUS:CANCELLED` are ignored.
 * A TZID that is an IANA name is converted with the runtime's tz data, any other TZID with the feed's own
 * VTIMEZONE; ambiguous and nonexistent local times follow RFC 5545 3.3.5. All-day events make the whole local
 * day(s) busy, from midnight to midnight in the feed's `X-WR-TIMEZONE`, else `options.defaultZone`, else UTC;
 * floating times use the same zone. Throws IcsParseError when the text is not iCalendar, names a time zone it
 * does not define, or needs too many expansions (a feed error is never free time).
 */
export function parseIcsBusyTimes(
  icsText: string,
  windowStart: Date,
  windowEnd: Date,
  options: IcsBusyOptions = {},
): Interval[] {
  const root = parseCalendar(icsText);
  const fromMs = windowStart.getTime();
  const toMs = windowEnd.getTime();
  const calendarZone = root.getFirstPropertyValue('x-wr-timezone');
  const floatingZone =
    typeof calendarZone === 'string' && isValidTimezone(calendarZone) ? calendarZone : (options.defaultZone ?? 'UTC');
  if (!isValidTimezone(floatingZone)) throw new RangeError(`defaultZone is not an IANA zone: ${floatingZone}`);
  const limit = options.maxOccurrencesPerEvent ?? 50_000;
  const converter = new InstantConverter(floatingZone);

  const busy: Interval[] = [];
  const add = (interval: Interval | undefined): void => {
    if (interval !== undefined && interval.end > fromMs && interval.start < toMs) busy.push(interval);
  };
  try {
    const events = root.getAllSubcomponents('vevent');
    const masters: IcalComponent[] = [];
    // Overrides per UID, keyed by the instant of the instance they replace.
    const overrides = new Map<string, Map<number, IcalComponent>>();
    for (const event of events) {
      const recurrenceId = event.getFirstProperty('recurrence-id');
      if (recurrenceId === null) {
        masters.push(event);
        continue;
      }
      const uid = String(event.getFirstPropertyValue('uid') ?? '');
      let byInstant = overrides.get(uid);
      if (byInstant === undefined) {
        byInstant = new Map();
        overrides.set(uid, byInstant);
      }
      byInstant.set(converter.instantOf(recurrenceId.getFirstValue() as IcalTime, recurrenceId), event);
    }
    for (const master of masters) {
      const uid = String(master.getFirstPropertyValue('uid') ?? '');
      expandMaster(master, overrides.get(uid), converter, toMs, limit, add);
    }
    // Every override is busy time of its own (also one whose master is missing), unless cancelled or free.
    for (const byInstant of overrides.values()) {
      for (const override of byInstant.values()) {
        if (isBusy(override)) add(converter.intervalOf(override));
      }
    }
  } catch (error) {
    if (error instanceof IcsParseError) throw error;
    throw new IcsParseError('ICS_UNPARSEABLE', `The iCalendar feed has an invalid event: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return [...normalizeBusy(busy)];
}

function parseCalendar(icsText: string): IcalComponent {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(icsText);
  } catch (error) {
    throw new IcsParseError('ICS_UNPARSEABLE', `The feed is not valid iCalendar: ${messageOf(error)}`, {
      cause: error,
    });
  }
  // ICAL.parse answers an array of components when the text holds several (or none).
  const single =
    Array.isArray(jcal) && typeof jcal[0] === 'string'
      ? jcal
      : Array.isArray(jcal) && jcal.length === 1
        ? jcal[0]
        : undefined;
  if (!Array.isArray(single) || single[0] !== 'vcalendar') {
    throw new IcsParseError('ICS_UNPARSEABLE', 'The feed must hold exactly one VCALENDAR.');
  }
  return new ICAL.Component(single as unknown[]);
}

function expandMaster(
  master: IcalComponent,
  overrides: Map<number, IcalComponent> | undefined,
  converter: InstantConverter,
  toMs: number,
  limit: number,
  add: (interval: Interval | undefined) => void,
): void {
  if (!isBusy(master)) return;
  const event = new ICAL.Event(master);
  if (!event.isRecurring()) {
    add(converter.intervalOf(master));
    return;
  }
  const dtstart = master.getFirstProperty('dtstart');
  if (dtstart === null) throw new IcsParseError('ICS_UNPARSEABLE', 'A recurring event has no DTSTART.');
  const excluded = new Set<number>();
  for (const exdate of master.getAllProperties('exdate')) {
    for (const value of exdate.getValues()) excluded.add(converter.instantOf(value as IcalTime, exdate));
  }
  const first = converter.intervalOf(master);
  const length = first === undefined ? 0 : first.end - first.start;
  const allDayLength = event.startDate.isDate ? allDayCount(event) : 0;

  const iterator = event.iterator();
  for (let count = 0; ; count += 1) {
    if (count >= limit) {
      throw new IcsParseError(
        'ICS_TOO_COMPLEX',
        `A recurring event needs more than ${limit} expansions to reach the window.`,
      );
    }
    const occurrence = iterator.next();
    if (!occurrence) return;
    const start = converter.instantOf(occurrence, dtstart);
    if (start >= toMs) return;
    // Overridden instances are added from their own component; excluded ones not at all.
    if (excluded.has(start) || overrides?.has(start) === true) continue;
    if (occurrence.isDate) {
      add({ start, end: converter.allDayEnd(occurrence, allDayLength) });
    } else {
      add({ start, end: start + length });
    }
  }
}

function allDayCount(event: InstanceType<typeof ICAL.Event>): number {
  const start = dayNumberOf(dateString(event.startDate));
  const end = dayNumberOf(dateString(event.endDate));
  return start !== undefined && end !== undefined && end > start ? end - start : 1;
}

function isBusy(event: IcalComponent): boolean {
  const transparency = String(event.getFirstPropertyValue('transp') ?? 'OPAQUE').toUpperCase();
  const status = String(event.getFirstPropertyValue('status') ?? '').toUpperCase();
  return transparency !== 'TRANSPARENT' && status !== 'CANCELLED';
}

/** Converts iCalendar times to epoch ms with the zone rules described on parseIcsBusyTimes. */
class InstantConverter {
  constructor(private readonly floatingZone: string) {}

  /** The busy interval of a single (non-expanded) event, or undefined when it has no DTSTART. */
  intervalOf(event: IcalComponent): Interval | undefined {
    const dtstart = event.getFirstProperty('dtstart');
    if (dtstart === null) return undefined;
    const startTime = dtstart.getFirstValue() as IcalTime;
    const start = this.instantOf(startTime, dtstart);
    const wrapped = new ICAL.Event(event);
    if (startTime.isDate) return { start, end: this.allDayEnd(startTime, allDayCount(wrapped)) };
    const dtend = event.getFirstProperty('dtend');
    if (dtend !== null) return { start, end: this.instantOf(dtend.getFirstValue() as IcalTime, dtend) };
    const duration = event.getFirstPropertyValue('duration');
    if (duration instanceof ICAL.Duration) return { start, end: start + duration.toSeconds() * MS_PER_SECOND };
    return { start, end: start };
  }

  /** The instant of a DATE-TIME (or of a DATE's local midnight) carried by `property`. */
  instantOf(time: IcalTime, property: IcalProperty): number {
    if (time.isDate) return this.zonedInstant(this.floatingZone, time);
    if (time.zone === ICAL.Timezone.utcTimezone) return time.toUnixTime() * MS_PER_SECOND;
    const tzid = property.getParameter('tzid');
    if (typeof tzid !== 'string' || tzid === '') return this.zonedInstant(this.floatingZone, time);
    if (isValidTimezone(tzid)) return this.zonedInstant(tzid, time);
    // A non-IANA TZID (e.g. Outlook's "W. Europe Standard Time") is usable only through the feed's VTIMEZONE.
    const zone = time.zone;
    if (zone !== undefined && zone !== null && zone.tzid === tzid && zone !== ICAL.Timezone.localTimezone) {
      return time.toUnixTime() * MS_PER_SECOND;
    }
    throw new IcsParseError('ICS_UNKNOWN_TIMEZONE', `The feed uses TZID "${tzid}" without defining it in a VTIMEZONE.`);
  }

  /** Local midnight after `days` whole days from an all-day start. */
  allDayEnd(start: IcalTime, days: number): number {
    const startDay = dayNumberOf(dateString(start));
    if (startDay === undefined) throw new IcsParseError('ICS_UNPARSEABLE', 'An all-day event has an invalid date.');
    return rfc5545Instant(zoneDay(this.floatingZone, dateOfDayNumber(startDay + days)), 0);
  }

  private zonedInstant(zone: string, time: IcalTime): number {
    const day = zoneDay(zone, dateString(time));
    const ms = time.isDate ? 0 : ((time.hour * 60 + time.minute) * 60 + time.second) * MS_PER_SECOND;
    return rfc5545Instant(day, ms);
  }
}

function dateString(time: IcalTime): string {
  return `${String(time.year).padStart(4, '0')}-${String(time.month).padStart(2, '0')}-${String(time.day).padStart(2, '0')}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
