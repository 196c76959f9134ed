import { h } from './dom.js';

/** An instant as a `<time>` in the reader's locale, with the ISO value kept in `datetime` and the tooltip. */
export function timeCell(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return h(
    'time',
    { datetime: iso, title: iso },
    d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }),
  );
}

/** A status word as a coloured badge (colour is never the only signal: the word is the badge). */
export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status.replace(/[^a-z_]/gi, '')}` }, status);
}

/** A JSON value, pretty-printed as text. */
export function jsonBlock(value: unknown, label = 'JSON'): HTMLElement {
  return h('pre', { class: 'json', tabindex: 0, 'aria-label': label }, JSON.stringify(value, null, 2));
}

/** An id in monospace, as a link into the console when a path is given. */
export function idLink(id: string, path?: string): HTMLElement {
  return path ? h('a', { href: path, class: 'mono' }, id) : h('code', {}, id);
}

/** A list of constraint values (`["es","en"]`) as text; an empty list reads "none". */
export function valuesText(values: readonly unknown[]): string {
  return values.length === 0 ? 'none' : values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** A slot `{start, end, timezone}` as local date and times in its own time zone, with the zone named. */
export function slotText(slot: { start: string; end: string; timezone: string }): string {
  try {
    const day = new Intl.DateTimeFormat(undefined, {
      timeZone: slot.timezone,
      dateStyle: 'medium',
      timeStyle: 'short',
    });
    const time = new Intl.DateTimeFormat(undefined, { timeZone: slot.timezone, timeStyle: 'short' });
    return `${day.format(new Date(slot.start))} – ${time.format(new Date(slot.end))} (${slot.timezone})`;
  } catch {
    return `${slot.start} – ${slot.end} (${slot.timezone})`;
  }
}
