import type { z } from 'zod';
import type { CalendarConnection, WeekDays } from '../../contract/schemas/calendar-connection.js';
import { h } from '../ui/dom.js';
import { formField } from '../ui/form-field.js';

/** A schedule (calendar connection) as the API answers it. */
export type Schedule = z.infer<typeof CalendarConnection>;
type Week = z.infer<typeof WeekDays>;

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const LABELS: Record<(typeof WEEKDAYS)[number], string> = {
  monday: 'Monday',
  tuesday: 'Tuesday',
  wednesday: 'Wednesday',
  thursday: 'Thursday',
  friday: 'Friday',
  saturday: 'Saturday',
  sunday: 'Sunday',
};

/** Windows as text: `09:00-12:00, 13:00-17:00`. */
const windowsText = (slots: readonly { start: string; end: string }[]) =>
  slots.map((s) => `${s.start}-${s.end}`).join(', ');

/** A week in one line: `Mon 09:00-17:00 · Tue 09:00-17:00 …`, closed days left out. */
export function weekText(days: Week): string {
  const open = WEEKDAYS.filter((d) => days[d].enabled && days[d].slots.length > 0);
  return open.length === 0
    ? 'closed every day'
    : open.map((d) => `${LABELS[d].slice(0, 3)} ${windowsText(days[d].slots)}`).join(' · ');
}

/** Reads `09:00-12:00, 13:00-17:00` into windows; a malformed part is reported by its text. */
function windowsOf(text: string): { start: string; end: string }[] | string {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const windows: { start: string; end: string }[] = [];
  for (const part of parts) {
    const m = /^(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})$/.exec(part);
    if (!m) return part;
    windows.push({ start: m[1]!.padStart(5, '0'), end: m[2]!.padStart(5, '0') });
  }
  return windows;
}

/** The fields of a schedule form and the body they make. */
export interface ScheduleForm {
  fields: HTMLElement[];
  /** The body, or a message naming the field that cannot be read. `update` sends null for emptied optional fields. */
  body(mode: 'create' | 'update'): Record<string, unknown> | string;
}

/**
 * Builds a schedule's fields: title, time zone, each weekday (open or closed, its windows as `09:00-12:00, 13:00-17:00`),
 * date overrides one per line (`2026-03-10: 09:00-12:00` or `2026-03-10: closed`) and the ICS feed whose events are busy.
 */
export function scheduleForm(s?: Schedule): ScheduleForm {
  const title = h('input', { type: 'text', name: 'title', value: s?.title ?? '', maxlength: 200, autocomplete: 'off' });
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const timezone = h('input', {
    type: 'text',
    name: 'timezone',
    required: true,
    value: s?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    list: 'iana-zones',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const zoneList = h(
    'datalist',
    { id: 'iana-zones' },
    zones.map((z) => h('option', { value: z })),
  );
  const days = WEEKDAYS.map((d) => {
    const day = s?.days[d] ?? {
      enabled: d !== 'saturday' && d !== 'sunday',
      slots: [{ start: '09:00', end: '17:00' }],
    };
    const open = h('input', { type: 'checkbox', name: `${d}-open`, id: `day-${d}-open`, checked: day.enabled });
    const windows = h('input', {
      type: 'text',
      name: `${d}-windows`,
      value: windowsText(day.slots),
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-label': `${LABELS[d]} windows`,
    });
    return { d, open, windows };
  });
  const overrides = h(
    'textarea',
    { name: 'overrides', rows: 3, spellcheck: 'false' },
    (s?.overrides ?? []).map((o) => `${o.date}: ${o.slots.length ? windowsText(o.slots) : 'closed'}`).join('\n'),
  );
  const ics = h('input', {
    type: 'url',
    name: 'externalCalendar',
    value: s?.externalCalendar?.url ?? '',
    maxlength: 1000,
    autocomplete: 'off',
    placeholder: 'https://calendar.example.com/provider.ics',
  });
  const fields = [
    h(
      'div',
      { class: 'form-row' },
      formField('Title', title, 'Optional, e.g. Clinic hours'),
      formField('Time zone', timezone, 'IANA name; the windows are wall-clock times there'),
    ),
    zoneList,
    h(
      'fieldset',
      { class: 'checks week' },
      h('legend', {}, 'Weekly hours'),
      h('p', { class: 'hint' }, 'Windows as 09:00-12:00, 13:00-17:00 (they must not overlap; an end may be 24:00).'),
      days.map(({ d, open, windows }) =>
        h(
          'div',
          { class: 'week-day' },
          h('div', { class: 'check' }, open, h('label', { for: open.id }, `${LABELS[d]} open`)),
          windows,
        ),
      ),
    ),
    formField(
      'Date overrides',
      overrides,
      'One per line: 2026-03-10: 09:00-12:00, or 2026-03-11: closed. Their windows replace that weekday.',
    ),
    formField(
      'Calendar feed (ICS URL)',
      ics,
      'Calendar connection: events of this iCalendar feed count as busy time. Leave empty for none.',
    ),
  ];
  return {
    fields,
    body(mode) {
      const week: Record<string, unknown> = {};
      for (const { d, open, windows } of days) {
        const slots = windowsOf(windows.value);
        if (typeof slots === 'string') return `${LABELS[d]}: “${slots}” is not a window such as 09:00-12:00.`;
        week[d] = { enabled: open.checked, slots };
      }
      const dated: { date: string; slots: { start: string; end: string }[] }[] = [];
      for (const line of overrides.value.split('\n').map((l) => l.trim())) {
        if (!line) continue;
        const m = /^(\d{4}-\d{2}-\d{2})\s*:?\s*(.*)$/.exec(line);
        if (!m) return `Date overrides: “${line}” does not start with a date such as 2026-03-10.`;
        const rest = m[2]!.trim();
        const slots = rest === '' || /^closed$/i.test(rest) ? [] : windowsOf(rest);
        if (typeof slots === 'string') return `Date overrides: “${slots}” is not a window such as 09:00-12:00.`;
        dated.push({ date: m[1]!, slots });
      }
      const empty = mode === 'create' ? undefined : null;
      const body: Record<string, unknown> = {
        title: title.value.trim() || empty,
        timezone: timezone.value.trim(),
        days: week,
        overrides: dated.length > 0 ? dated : mode === 'create' ? undefined : [],
        externalCalendar: ics.value.trim() ? { type: 'ics', url: ics.value.trim() } : empty,
      };
      return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    },
  };
}
