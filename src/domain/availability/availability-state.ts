/** Availability states of a provider (SPEC part 3) and the rule that picks one (CONTRACT part 3). */

/** The availability state of a provider or option. */
export type AvailabilityState =
  | 'verified_available'
  | 'unavailable'
  | 'unverifiable'
  | 'stale'
  | 'calendar_disconnected'
  | 'not_checked';

/** Age after which cached feed busy time no longer counts as checked. */
export const FEED_STALE_AFTER_MS = 15 * 60_000;

/** What is known of a provider's external calendar feed: none configured, the last fetch succeeded, or it failed. */
export type FeedStatus =
  | undefined
  | { ok: true; fetchedAt: Date }
  | { ok: false; lastGoodFetchedAt?: Date | undefined };

/** Whether a provider's calendar can be checked, and if not, the state that says why. */
export type CalendarCheck = 'checked' | 'calendar_disconnected' | 'unverifiable' | 'stale';

/**
 * Decides whether a provider's availability can be checked: no schedule -> `calendar_disconnected`; a failed feed
 * fetch with no cached copy -> `unverifiable`; a failed refresh whose cached copy is older than 15 minutes -> `stale`;
 * otherwise `checked` (a failed refresh with a copy at most 15 minutes old still counts). A successful fetch older
 * than 15 minutes is `stale` too: the feed was not refreshed, so it cannot vouch for free time.
 */
export function decideCalendarCheck(input: { hasSchedule: boolean; feed: FeedStatus; now: Date }): CalendarCheck {
  if (!input.hasSchedule) return 'calendar_disconnected';
  const { feed } = input;
  if (feed === undefined) return 'checked';
  const copyTakenAt = feed.ok ? feed.fetchedAt : feed.lastGoodFetchedAt;
  if (copyTakenAt === undefined) return 'unverifiable';
  return input.now.getTime() - copyTakenAt.getTime() > FEED_STALE_AFTER_MS ? 'stale' : 'checked';
}

/** The availability state of a provider: the calendar check's state, or for a checked one whether a free slot exists. */
export function availabilityStateOf(check: CalendarCheck, hasFreeSlot: boolean): AvailabilityState {
  if (check !== 'checked') return check;
  return hasFreeSlot ? 'verified_available' : 'unavailable';
}
