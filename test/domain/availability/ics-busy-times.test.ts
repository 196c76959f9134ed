import { readFileSync } from 'node:fs';
import test from 'ava';
import {
  IcsParseError,
  parseIcsBusyTimes,
  type IcsErrorCode,
} from '../../../src/domain/availability/ics-busy-times.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/ics/${name}`, import.meta.url), 'utf8');
const span = (intervals: { start: number; end: number }[]) =>
  intervals.map((i) => `${new Date(i.start).toISOString()} ${new Date(i.end).toISOString()}`);
const d = (s: string) => new Date(s);

test('weekly event: wall-clock recurrence across DST, EXDATE, moved and cancelled instances', (t) => {
  const busy = parseIcsBusyTimes(fixture('weekly-recurring.ics'), d('2026-03-01T00:00:00Z'), d('2026-04-30T00:00:00Z'));
  t.deepEqual(span(busy), [
    '2026-03-03T15:00:00.000Z 2026-03-03T16:00:00.000Z', // 10:00 EST
    '2026-03-10T14:00:00.000Z 2026-03-10T15:00:00.000Z', // 10:00 EDT after the change
    // 17 March excluded by EXDATE; 24 March moved to Wednesday 14:00 EDT; 31 March cancelled.
    '2026-03-25T18:00:00.000Z 2026-03-25T19:00:00.000Z',
    '2026-04-07T14:00:00.000Z 2026-04-07T15:00:00.000Z', // sixth and last (COUNT=6)
  ]);
});

test('only instances overlapping the window are returned', (t) => {
  const busy = parseIcsBusyTimes(fixture('weekly-recurring.ics'), d('2026-03-10T14:30:00Z'), d('2026-03-25T18:00:00Z'));
  t.deepEqual(span(busy), ['2026-03-10T14:00:00.000Z 2026-03-10T15:00:00.000Z']);
});

test('a moved instance counts where it moved to, even when the original date is outside the window', (t) => {
  const busy = parseIcsBusyTimes(fixture('weekly-recurring.ics'), d('2026-03-25T00:00:00Z'), d('2026-03-26T00:00:00Z'));
  t.deepEqual(span(busy), ['2026-03-25T18:00:00.000Z 2026-03-25T19:00:00.000Z']);
});

test('TZID events: IANA zone with an ambiguous start, a VTIMEZONE-defined zone, UTC with DURATION, transparent ignored', (t) => {
  const busy = parseIcsBusyTimes(fixture('tzid-events.ics'), d('2026-10-01T00:00:00Z'), d('2026-11-01T00:00:00Z'));
  t.deepEqual(span(busy), [
    '2026-10-25T00:30:00.000Z 2026-10-25T03:00:00.000Z', // 02:30 CEST (first occurrence) to 04:00 CET
    '2026-10-26T08:00:00.000Z 2026-10-26T09:00:00.000Z', // 09:00 "W. Europe Standard Time" = CET
    '2026-10-27T12:00:00.000Z 2026-10-27T12:45:00.000Z',
  ]);
});

test('all-day events cover whole local days of X-WR-TIMEZONE (a 25-hour day on the Sydney change)', (t) => {
  const busy = parseIcsBusyTimes(fixture('all-day.ics'), d('2026-04-01T00:00:00Z'), d('2026-04-30T00:00:00Z'), {
    defaultZone: 'America/New_York',
  });
  t.deepEqual(span(busy), [
    '2026-04-04T13:00:00.000Z 2026-04-05T14:00:00.000Z', // 5 April 00:00 AEDT to 6 April 00:00 AEST
    '2026-04-07T14:00:00.000Z 2026-04-09T14:00:00.000Z', // 8-9 April
    '2026-04-14T14:00:00.000Z 2026-04-16T14:00:00.000Z', // repeated a week later; 20 April is cancelled
  ]);
});

test('all-day and floating times use defaultZone when the feed names no zone', (t) => {
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//t//t//EN',
    'BEGIN:VEVENT',
    'UID:a',
    'DTSTAMP:20260101T000000Z',
    'DTSTART;VALUE=DATE:20260310',
    'DTEND;VALUE=DATE:20260311',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:b',
    'DTSTAMP:20260101T000000Z',
    'DTSTART:20260312T090000',
    'DTEND:20260312T100000',
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');
  const window = [d('2026-03-01T00:00:00Z'), d('2026-03-31T00:00:00Z')] as const;
  t.deepEqual(span(parseIcsBusyTimes(ics, ...window, { defaultZone: 'Europe/Berlin' })), [
    '2026-03-09T23:00:00.000Z 2026-03-10T23:00:00.000Z',
    '2026-03-12T08:00:00.000Z 2026-03-12T09:00:00.000Z',
  ]);
  t.deepEqual(span(parseIcsBusyTimes(ics, ...window)), [
    '2026-03-10T00:00:00.000Z 2026-03-11T00:00:00.000Z',
    '2026-03-12T09:00:00.000Z 2026-03-12T10:00:00.000Z',
  ]);
});

test('an open-ended daily rule far in the past is expanded up to the window only', (t) => {
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//t//t//EN',
    'BEGIN:VEVENT',
    'UID:daily',
    'DTSTAMP:20200101T000000Z',
    'DTSTART;TZID=America/New_York:20200101T120000',
    'DTEND;TZID=America/New_York:20200101T123000',
    'RRULE:FREQ=DAILY',
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');
  const busy = parseIcsBusyTimes(ics, d('2026-03-07T00:00:00Z'), d('2026-03-10T00:00:00Z'));
  t.deepEqual(span(busy), [
    '2026-03-07T17:00:00.000Z 2026-03-07T17:30:00.000Z',
    '2026-03-08T16:00:00.000Z 2026-03-08T16:30:00.000Z',
    '2026-03-09T16:00:00.000Z 2026-03-09T16:30:00.000Z',
  ]);
  const error = t.throws(
    () => parseIcsBusyTimes(ics, d('2026-03-07T00:00:00Z'), d('2026-03-10T00:00:00Z'), { maxOccurrencesPerEvent: 100 }),
    { instanceOf: IcsParseError },
  );
  t.is(error?.code, 'ICS_TOO_COMPLEX');
});

const broken: [string, string, IcsErrorCode][] = [
  ['empty text', '', 'ICS_UNPARSEABLE'],
  ['not iCalendar', 'hello world', 'ICS_UNPARSEABLE'],
  ['no VCALENDAR', 'BEGIN:VEVENT\r\nEND:VEVENT', 'ICS_UNPARSEABLE'],
  [
    'bad date-time',
    'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:2026XX01T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR',
    'ICS_UNPARSEABLE',
  ],
  [
    'undefined TZID',
    'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;TZID=Nowhere/City:20260101T100000\r\nDTEND;TZID=Nowhere/City:20260101T110000\r\nEND:VEVENT\r\nEND:VCALENDAR',
    'ICS_UNKNOWN_TIMEZONE',
  ],
];
for (const [title, text, code] of broken) {
  test(`throws IcsParseError on ${title}`, (t) => {
    const error = t.throws(() => parseIcsBusyTimes(text, d('2020-01-01T00:00:00Z'), d('2030-01-01T00:00:00Z')), {
      instanceOf: IcsParseError,
    });
    t.is(error?.code, code);
  });
}
