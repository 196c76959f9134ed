import type { CalendarConnection } from '../../domain/provider.js';
import { parseIcsBusyTimes } from '../../domain/availability/ics-busy-times.js';
import { normalizeBusy, type Interval } from '../../domain/availability/busy-intervals.js';
import { subtractIntervals } from '../../domain/availability/subtract-intervals.js';
import type { FeedState } from '../../domain/resolution/compute-resolution.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { FEED_CONTENT_TYPES, FEED_MAX_BYTES, FEED_MAX_REDIRECTS } from './feed-client.js';
import {
  reasonOfFailure,
  reasonOfParseError,
  reasonOfStatus,
  FEED_REASONS,
  type FeedReason,
} from './feed-failure-reason.js';

/** A change of a feed's health worth an event (CONTRACT part 3). */
export interface FeedIncident {
  connection: CalendarConnection;
  type: 'calendar.connection_degraded' | 'calendar.reconnect_required';
  /** One of FEED_REASONS: never text the feed answered. */
  reason: FeedReason;
}

interface CacheEntry {
  /** When the feed was last fetched successfully. */
  fetchedAt: number | undefined;
  busy: Interval[];
  /** When the last attempt (success or failure) happened. */
  attemptedAt: number;
  /** How the feed is failing now (undefined: its last fetch succeeded); an event marks each change of it. */
  failure: 'degraded' | 'reconnect' | undefined;
  refreshing: Promise<void> | undefined;
}

const DAY_MS = 86_400_000;

/**
 * Fetches and caches providers' iCalendar feeds (busy time) through the guarded outbound client (createFeedClient:
 * public addresses only, every redirect hop checked, at most FEED_MAX_BYTES of an iCalendar media type). A fetch has
 * a timeout; a success is reused for `refreshMs`; a failed refresh keeps serving the last good copy for up to 15
 * minutes, after which the state is `stale`; a feed never fetched successfully is `unverifiable`. Calendar errors are
 * never free time, and the reasons reported are FEED_REASONS only. Busy time a refresh finds gone from the feed (an
 * event cancelled, shortened or moved) is passed, from now on, to `onBusyFreed` (the waitlist queues it for offers).
 */
export function createCalendarFeeds(deps: {
  clock: () => Date;
  client: OutboundClient;
  fetchTimeoutMs?: number;
  refreshMs?: number;
  staleAfterMs?: number;
  horizonDays?: number;
  /**
   * Called with the busy time of a connection that a successful refresh no longer lists (from now to the horizon),
   * before the refresh is served. A failure of the hook is ignored: the resolution is served all the same.
   */
  onBusyFreed?: (connection: CalendarConnection, freed: Interval[]) => Promise<void>;
}) {
  const timeoutMs = deps.fetchTimeoutMs ?? 3000;
  const refreshMs = deps.refreshMs ?? 5 * 60_000;
  const staleAfterMs = deps.staleAfterMs ?? 15 * 60_000;
  const horizon = deps.horizonDays ?? 60;
  const cache = new Map<string, CacheEntry>();

  async function fetchFeed(
    connection: CalendarConnection,
    url: string,
    entry: CacheEntry,
    onIncident: (kind: 'degraded' | 'reconnect', reason: FeedReason) => void,
  ) {
    const now = deps.clock().getTime();
    entry.attemptedAt = now;
    const degraded = (reason: FeedReason) => {
      // Only the transition is an event: a connection that begins failing (not every failed refresh).
      if (entry.failure === undefined) onIncident('degraded', reason);
      entry.failure ??= 'degraded';
    };
    const res = await deps.client.request(url, {
      method: 'GET',
      headers: { Accept: FEED_CONTENT_TYPES.join(', ') },
      timeoutMs,
      maxRedirects: FEED_MAX_REDIRECTS,
      maxBytes: FEED_MAX_BYTES,
      contentTypes: FEED_CONTENT_TYPES,
    });
    if (res.kind === 'failure') return degraded(reasonOfFailure(res.failure, res.redirects));
    if (res.status === 401 || res.status === 403 || res.status === 404 || res.status === 410) {
      // Access expired or was revoked: reported even when the feed was already failing otherwise.
      if (entry.failure !== 'reconnect') onIncident('reconnect', FEED_REASONS.accessRevoked);
      entry.failure = 'reconnect';
      return;
    }
    if (res.status < 200 || res.status >= 300 || res.body === undefined) return degraded(reasonOfStatus(res.status));
    let busy: Interval[];
    try {
      busy = parseIcsBusyTimes(res.body.toString('utf8'), new Date(now - DAY_MS), new Date(now + horizon * DAY_MS));
    } catch (err) {
      return degraded(reasonOfParseError(err));
    }
    // Only against a good copy: a feed seen for the first time (or in a new process) frees nothing.
    if (entry.fetchedAt !== undefined && deps.onBusyFreed) {
      const freed = subtractIntervals(normalizeBusy(entry.busy), normalizeBusy(busy), now, now + horizon * DAY_MS);
      if (freed.length > 0) await deps.onBusyFreed(connection, freed).catch(() => undefined);
    }
    entry.busy = busy;
    entry.fetchedAt = now;
    entry.failure = undefined;
  }

  return {
    /**
     * Feed states of the connections that have an ICS feed, keyed by provider id; `incidents` collects the
     * health changes this call observed (to store as events).
     */
    async states(
      connections: readonly CalendarConnection[],
      incidents: FeedIncident[],
    ): Promise<Map<string, FeedState>> {
      const out = new Map<string, FeedState>();
      await Promise.all(
        connections.map(async (c) => {
          const url = c.externalCalendar?.url;
          if (!url) return;
          let entry = cache.get(`${c.id}|${url}`);
          if (!entry)
            cache.set(
              `${c.id}|${url}`,
              (entry = { fetchedAt: undefined, busy: [], attemptedAt: 0, failure: undefined, refreshing: undefined }),
            );
          const now = deps.clock().getTime();
          const due =
            entry.fetchedAt === undefined ||
            now - entry.attemptedAt >= (entry.failure !== undefined ? Math.min(refreshMs, 30_000) : refreshMs);
          if (due) {
            entry.refreshing ??= fetchFeed(c, url, entry, (kind, reason) =>
              incidents.push({
                connection: c,
                type: kind === 'degraded' ? 'calendar.connection_degraded' : 'calendar.reconnect_required',
                reason,
              }),
            ).finally(() => {
              entry!.refreshing = undefined;
            });
            await entry.refreshing;
          }
          if (entry.fetchedAt === undefined) {
            out.set(c.providerId, { state: 'unverifiable', reason: 'the calendar feed could not be fetched' });
          } else if (entry.failure !== undefined && now - entry.fetchedAt > staleAfterMs) {
            out.set(c.providerId, {
              state: 'stale',
              reason: 'the cached calendar feed is older than 15 minutes and a refresh failed',
            });
          } else {
            out.set(c.providerId, { state: 'ok', busy: entry.busy });
          }
        }),
      );
      return out;
    },
  };
}

/** The feeds cache created by createCalendarFeeds. */
export type CalendarFeeds = ReturnType<typeof createCalendarFeeds>;
