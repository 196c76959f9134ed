import type {
  DayInput,
  DaysInput,
  ExternalCalendarInput,
  OverrideInput,
  TimeWindowInput,
} from '../../gen/scheduling/v1/resources.js';
import { WEEKDAYS } from '../../contract/schemas/calendar-connection.js';
import { validateSchedule } from '../../domain/availability/validate-schedule.js';
import type { OutboundLookup } from '../../application/outbound/guarded-lookup.js';
import { checkFeedUrl } from '../../application/resolution/feed-client.js';
import { given, type RequestProblems } from '../request-problems.js';

/** A window of a request as the contract's rules read it (`start`/`end` left out: not given). */
const windowInput = (w: TimeWindowInput) => ({ start: given(w.start), end: given(w.end) });
const windowsInput = (slots: TimeWindowInput[] | undefined) => (slots ?? []).map(windowInput);
const dayInput = (d: DayInput) => ({ enabled: d.enabled, slots: windowsInput(d.slots) });

/** The weekdays a request gives, as the contract's `DaysInput` rule and validateSchedule read them (others left out). */
export function daysInput(days: DaysInput | undefined): Record<string, ReturnType<typeof dayInput>> | undefined {
  if (!days) return undefined;
  const out: Record<string, ReturnType<typeof dayInput>> = {};
  for (const d of WEEKDAYS) {
    const day = days[d];
    if (day) out[d] = dayInput(day);
  }
  return out;
}

/** The date overrides a request gives, as the contract's rule reads them (none: an empty list). */
export function overridesInput(overrides: OverrideInput[] | undefined) {
  return (overrides ?? []).map((o) => ({ date: given(o.date), slots: windowsInput(o.slots) }));
}

/** The external calendar a request gives, as the contract's rule reads it. */
export function externalCalendarInput(e: ExternalCalendarInput | undefined) {
  return e ? { type: given(e.type), url: given(e.url) } : undefined;
}

/** Answers whether two dotted field paths name the same field or one contains the other. */
function overlapping(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * Adds the problems validateSchedule finds in a schedule (windows that overlap or end before they start, a repeated
 * override date...) to those the fields' rules found, a field already named by them reported once.
 */
export function addScheduleProblems(
  problems: RequestProblems,
  schedule: { timezone: unknown; days: unknown; overrides: unknown },
): void {
  for (const p of validateSchedule(schedule)) {
    if (!problems.fields.some((f) => overlapping(f, p.field))) problems.add(p.field || '(body)', p.message);
  }
}

/** What checking a feed URL uses: the outbound rules of the one SSRF-guarded feed client. */
export interface FeedCheckDeps {
  config: { outboundAllowInsecureUrls: boolean };
  outboundLookup?: OutboundLookup;
}

/**
 * Refuses a feed URL the guarded feed client would not fetch (400 on `externalCalendar.url`), resolving its host:
 * outside any transaction, as it may take a while and needs no lock.
 */
export function checkFeed(deps: FeedCheckDeps, externalCalendar: { url: string } | null | undefined): Promise<void> {
  return externalCalendar
    ? checkFeedUrl(externalCalendar.url, {
        allowInsecure: deps.config.outboundAllowInsecureUrls,
        lookup: deps.outboundLookup,
      })
    : Promise.resolve();
}
