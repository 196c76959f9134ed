import { IcsParseError } from '../../domain/availability/ics-busy-times.js';
import type { OutboundFailureKind } from '../outbound/outbound-client.js';
import { FEED_MAX_BYTES, FEED_MAX_REDIRECTS } from './feed-client.js';

/**
 * Every reason a failing feed is reported with (the `reason` of `calendar.connection_degraded` and
 * `calendar.reconnect_required`). A fixed vocabulary: it never quotes what the feed answered, nor a status line, nor an
 * address; of a status only its class is named (a feed reached is a public one unless insecure URLs are allowed).
 */
export const FEED_REASONS = {
  invalidUrl: 'the feed URL is not a valid URL',
  notAllowed: 'the feed URL is not allowed: it must use https or http without credentials and reach a public address',
  redirectNotAllowed: 'the feed redirected to a URL that is not allowed',
  tooManyRedirects: `the feed redirected more than ${FEED_MAX_REDIRECTS} times`,
  unreachable: 'the feed could not be reached',
  timeout: 'the feed did not answer in time',
  tooLarge: `the feed is larger than ${FEED_MAX_BYTES / 1024 / 1024} MB`,
  notCalendar: 'the feed is not served as iCalendar (text/calendar)',
  invalid: 'the feed is not valid iCalendar',
  unknownTimezone: 'the feed uses a time zone it does not define',
  tooComplex: 'the feed has too many events or recurrences to expand',
  unreadable: 'the feed could not be read',
  accessRevoked: 'the feed refused access or no longer exists (HTTP 4xx)',
  clientError: 'the feed answered with an HTTP 4xx error',
  serverError: 'the feed answered with an HTTP 5xx error',
  unexpectedStatus: 'the feed answered with an unexpected HTTP status',
} as const;

/** A reason of FEED_REASONS. */
export type FeedReason = (typeof FEED_REASONS)[keyof typeof FEED_REASONS];

/** Whether a text is one of FEED_REASONS. */
export function isFeedReason(text: string): text is FeedReason {
  return (Object.values(FEED_REASONS) as string[]).includes(text);
}

/** The reason of a fetch that got no usable answer (`redirects`: hops followed before it). */
export function reasonOfFailure(failure: OutboundFailureKind, redirects: number): FeedReason {
  switch (failure) {
    case 'invalid_url':
      return redirects > 0 ? FEED_REASONS.redirectNotAllowed : FEED_REASONS.invalidUrl;
    case 'refused':
      return redirects > 0 ? FEED_REASONS.redirectNotAllowed : FEED_REASONS.notAllowed;
    case 'unreachable':
      return FEED_REASONS.unreachable;
    case 'timeout':
      return FEED_REASONS.timeout;
    case 'too_many_redirects':
      return FEED_REASONS.tooManyRedirects;
    case 'too_large':
      return FEED_REASONS.tooLarge;
    case 'content_type':
      return FEED_REASONS.notCalendar;
  }
}

/** The reason of an answer whose status is not 2xx. */
export function reasonOfStatus(status: number): FeedReason {
  if (status >= 500 && status < 600) return FEED_REASONS.serverError;
  if (status >= 400 && status < 500) return FEED_REASONS.clientError;
  return FEED_REASONS.unexpectedStatus;
}

/** The reason of a body that did not parse as iCalendar (its message quotes the body, so it is never shown). */
export function reasonOfParseError(err: unknown): FeedReason {
  if (!(err instanceof IcsParseError)) return FEED_REASONS.unreadable;
  if (err.code === 'ICS_UNKNOWN_TIMEZONE') return FEED_REASONS.unknownTimezone;
  if (err.code === 'ICS_TOO_COMPLEX') return FEED_REASONS.tooComplex;
  return FEED_REASONS.invalid;
}
