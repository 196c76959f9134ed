import test from 'ava';
import {
  availabilityStateOf,
  decideCalendarCheck,
  type CalendarCheck,
  type FeedStatus,
} from '../../../src/domain/availability/availability-state.js';

const now = new Date('2026-03-09T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

const cases: [string, boolean, FeedStatus, CalendarCheck][] = [
  ['no schedule', false, undefined, 'calendar_disconnected'],
  ['no schedule even with a good feed', false, { ok: true, fetchedAt: now }, 'calendar_disconnected'],
  ['schedule without feed', true, undefined, 'checked'],
  ['fresh feed', true, { ok: true, fetchedAt: minutesAgo(1) }, 'checked'],
  ['feed exactly 15 minutes old', true, { ok: true, fetchedAt: minutesAgo(15) }, 'checked'],
  ['feed fetched 16 minutes ago and not refreshed', true, { ok: true, fetchedAt: minutesAgo(16) }, 'stale'],
  ['fetch failed, never fetched', true, { ok: false }, 'unverifiable'],
  ['refresh failed, cache 10 minutes old', true, { ok: false, lastGoodFetchedAt: minutesAgo(10) }, 'checked'],
  ['refresh failed, cache 20 minutes old', true, { ok: false, lastGoodFetchedAt: minutesAgo(20) }, 'stale'],
];
for (const [title, hasSchedule, feed, expected] of cases) {
  test(`decideCalendarCheck: ${title}`, (t) => {
    t.is(decideCalendarCheck({ hasSchedule, feed, now }), expected);
  });
}

test('availabilityStateOf maps checked providers by free slots and passes the rest through', (t) => {
  t.is(availabilityStateOf('checked', true), 'verified_available');
  t.is(availabilityStateOf('checked', false), 'unavailable');
  t.is(availabilityStateOf('unverifiable', true), 'unverifiable');
  t.is(availabilityStateOf('stale', true), 'stale');
  t.is(availabilityStateOf('calendar_disconnected', false), 'calendar_disconnected');
});
